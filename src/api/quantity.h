/*
 * quantity.h - Kubernetes quantities: the parser moved to util/quantity.h
 * (the core's CEL selectors read quantities too, and the core depends on
 * util only). This header stays so that the decoders' includes need not
 * change; new code includes util/quantity.h.
 */
#ifndef GT_QUANTITY_H
#define GT_QUANTITY_H

#include "util/quantity.h"

#endif /* GT_QUANTITY_H */
