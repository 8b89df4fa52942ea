/*
 * manifest.h - Kubernetes objects from files, as kubectl -f reads them
 *
 * A path is a file (YAML or JSON, any number of documents), "-" for
 * standard input, or a directory: every .yaml, .yml and .json file in it,
 * in name order, and with @recursive (kubectl's -R) those of its
 * subdirectories too, depth first. Without it, subdirectories are skipped
 * with a warning, never silently.
 *
 * Reading carries on past what cannot be read: each document (or object
 * of a v1 List) that is not valid YAML or JSON is left out with an error
 * naming the file, line and column, and every other is read. An input that
 * holds no object at all (an empty file, /dev/null, a directory without
 * manifests) is a warning: an empty simulation is rarely what was meant.
 */
#ifndef GT_MANIFEST_H
#define GT_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "api/doc.h"

/*
 * Parse every document of @paths into @docs. Each problem goes to @diag as
 * "<prefix>: <file:line:col: ...>" (errors) or "<prefix>: warning: ...".
 * Returns 0 when everything was read; GT_EPARSE when something was left out
 * (docs->n_errors of them; the rest is in @docs); GT_EIO when a path cannot
 * be opened (@err names it, and nothing after it is read).
 */
int gt_manifests_load(const char *const *paths, size_t n, bool recursive, struct gt_doc_list *docs,
		      FILE *diag, const char *prefix, struct gt_err *err);

#endif /* GT_MANIFEST_H */
