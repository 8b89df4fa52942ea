/*
 * manifest.h - Kubernetes objects from files, as kubectl -f reads them
 *
 * A path is a file (YAML or JSON, any number of documents), "-" for
 * standard input, or a directory: every .yaml, .yml and .json file in it,
 * in name order, and with @recursive (kubectl's -R) those of its
 * subdirectories too, depth first. Without it, subdirectories are skipped
 * with a warning, never silently.
 */
#ifndef GT_MANIFEST_H
#define GT_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "api/doc.h"

/*
 * Parse every document of @paths into @docs. Warnings go to @diag as
 * "<prefix>: warning: ...". 0, or GT_EIO / GT_EPARSE with @err naming the
 * file (and the line).
 */
int gt_manifests_load(const char *const *paths, size_t n, bool recursive, struct gt_doc_list *docs,
		      FILE *diag, const char *prefix, struct gt_err *err);

#endif /* GT_MANIFEST_H */
