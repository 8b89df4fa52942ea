/* version.h - the one place Gantry's version is written */
#ifndef GT_VERSION_H
#define GT_VERSION_H

#define GANTRY_VERSION "0.1.0"

#endif /* GT_VERSION_H */
