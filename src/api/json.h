/*
 * json.h - API-server JSON as the document trees src/api decodes
 *
 * The API server speaks JSON; the decoders (src/api/decode.h) walk
 * struct gt_doc trees. Converting jansson values directly (rather than
 * printing and re-parsing through libyaml) keeps numbers, strings and nulls
 * exactly as the decoder expects them from YAML: strings are quoted scalars,
 * numbers and booleans plain ones, null the plain scalar "null".
 *
 * Converted nodes are made on the heap and carry no place (line 0):
 * messages name an object by its kind, namespace and name, and the decoder
 * reports rejections by object (decode.h), not by text. Files are read by
 * doc.h's readers, not here.
 */
#ifndef GT_JSON_H
#define GT_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "api/doc.h"

struct gt_doc *gt_doc_from_json(const json_t *v);
/*
 * Set the scalar at the path of map keys @keys[0..n) in @d, creating maps on
 * the way and replacing whatever was there. Keys are literal: "runai-gpu-group"
 * and "kubernetes.io/hostname" need no escaping.
 */
void gt_doc_set(struct gt_doc *d, const char *const *keys, size_t n, const char *value,
		 bool quoted);
/*
 * The other way, for writing back parts of an object (a PodGroup's other
 * scheduling conditions): quoted scalars become strings, plain ones
 * integers, reals, booleans or null when they read as such.
 */
json_t *gt_doc_to_json(const struct gt_doc *d);
/* @j printed compactly: a request body to free(). */
char *gt_json_dump(const json_t *j);
/* The same, and @j released. */
char *gt_json_dump_take(json_t *j);
/*
 * @j (an object or array) as json_dumpf(@j, @f, JSON_INDENT(@indent) |
 * JSON_REAL_PRECISION(10)) writes it, byte for byte, without its cost: jansson
 * hands its text to stdio a few bytes at a time and checks every container
 * for loops through a table of printed pointers, which for a simulation of
 * 50,000 pods took longer than building the values.
 */
void gt_json_print(FILE *f, const json_t *j, int indent);
/*
 * @j as block-style YAML (what -o yaml prints): maps and sequences
 * indented, scalars as JSON writes them (strings double-quoted), so the
 * values read back exactly as the JSON would.
 */
void gt_json_print_yaml(FILE *f, const json_t *j);
/* Standard base64 (padding optional, whitespace skipped). 0, or -1 if malformed. */
int gt_base64_decode(const char *in, unsigned char **out, size_t *len);
/* @len bytes of @in as standard base64, padded, on one line: a string to free(). */
char *gt_base64_encode(const unsigned char *in, size_t len);

#endif /* GT_JSON_H */
