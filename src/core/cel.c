/*
 * cel.c - the DRA selector subset of CEL (see cel.h, docs/dra.md)
 *
 * Three parts, in file order:
 *   1. the lexer: CEL's tokens, with the column (1-based byte offset) of each;
 *   2. the parser: CEL's grammar by recursive descent into an array of nodes,
 *      with a static type for each node, so that what Kubernetes' type checker
 *      refuses (`device.driver == 1`, an expression that is not a bool) is a
 *      compile error here too, and everything outside the subset is refused
 *      with its column;
 *   3. the evaluator: one walk of the nodes per device (each node at most
 *      once: linear in the expression), allocating only for list values and
 *      lowerAscii()'s strings, with CEL's error semantics (an error is a value; `false && error` is
 *      false and `true || error` true, in either order).
 *
 * Values that Kubernetes leaves dynamic (an attribute can be a bool, an int,
 * a string or a version) are typed DYN at compile time and checked when
 * evaluated, as cel-go does.
 */
#include "core/cel.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "util/quantity.h"

/* Kubernetes' limit on a selector's length (resource.k8s.io CELSelectorExpressionMaxLength). */
#define MAX_EXPR_LEN 10240
/* Deeper trees are refused: the parser and the evaluator recurse. */
#define MAX_DEPTH 100
/* cel.bind() variables visible at once, and in one expression */
#define MAX_VARS 16
#define MAX_SLOTS 64
/* error values alive at once in one evaluation; more reuse the last */
#define MAX_ERRORS 8

/* ---------------------------------------------------------------- types */

/* A value's type: static (per node, at compile time) and dynamic (per value). */
enum type {
	T_DYN,		/* known only when evaluated (attribute values) */
	T_ERROR,
	T_NULL,
	T_BOOL,
	T_INT,
	T_DOUBLE,
	T_STRING,
	T_QUANTITY,	/* in milli-units */
	T_SEMVER,
	T_LIST,		/* a list literal */
	T_DEVICE,
	T_ATTR_DOMAINS,	/* device.attributes */
	T_ATTRS,	/* device.attributes["domain"] */
	T_CAP_DOMAINS,	/* device.capacity */
	T_CAPS,		/* device.capacity["domain"] */
};

static const char *const type_names[] = {
	[T_DYN] = "dyn",	     [T_ERROR] = "error",	 [T_NULL] = "null_type",
	[T_BOOL] = "bool",	     [T_INT] = "int",		 [T_DOUBLE] = "double",
	[T_STRING] = "string",	     [T_QUANTITY] = "Quantity",	 [T_SEMVER] = "Semver",
	[T_LIST] = "list",	     [T_DEVICE] = "device",	 [T_ATTR_DOMAINS] = "map",
	[T_ATTRS] = "map",	     [T_CAP_DOMAINS] = "map",	 [T_CAPS] = "map",
};

struct semver {
	int64_t major, minor, patch;
	const char *pre;	/* prerelease identifiers, not NUL-terminated */
	size_t pre_len;		/* 0: a release */
};

struct value {
	enum type t;
	bool b;
	int64_t i;		/* INT, QUANTITY (milli); ERROR: its message slot */
	double d;
	const char *s;		/* STRING (NUL-terminated); ATTRS and CAPS: the domain */
	size_t len;		/* STRING: bytes; ATTRS, CAPS: the domain's */
	struct semver v;
	const struct value *items;	/* LIST: its elements, i of them */
};

/* ---------------------------------------------------------------- nodes */

enum kind {
	N_LITERAL,	/* lit */
	N_DEVICE,	/* the variable `device` */
	N_VAR,		/* a cel.bind() variable: slot in `op` */
	N_SELECT,	/* a.field, the field in lit.s */
	N_INDEX,	/* a[b] */
	N_NOT,		/* !a */
	N_NEG,		/* -a */
	N_BINARY,	/* a op b */
	N_AND,		/* kids: every operand of a chain of && */
	N_OR,		/* kids: every operand of a chain of || */
	N_COND,		/* a ? b : c */
	N_LIST,		/* kids: the elements */
	N_CALL,		/* function `op`, receiver a (or -1), kids: the arguments */
	N_HAS,		/* has(a.field): a is the N_SELECT */
	N_BIND,		/* cel.bind(var, a, b): slot in `op` */
};

enum binop { B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_IN, B_ADD, B_SUB, B_MUL, B_DIV, B_MOD };

static const char *const binop_names[] = {
	[B_EQ] = "==", [B_NE] = "!=", [B_LT] = "<",  [B_LE] = "<=", [B_GT] = ">",  [B_GE] = ">=",
	[B_IN] = "in", [B_ADD] = "+", [B_SUB] = "-", [B_MUL] = "*", [B_DIV] = "/", [B_MOD] = "%",
};

struct node {
	enum kind kind;
	enum type type;		/* static */
	int op;			/* enum binop, enum fn, or a variable's slot */
	int col;
	int a, b, c;		/* children, -1 when absent */
	int first, n;		/* kids[first .. first+n) */
	struct value lit;
	int regex;		/* matches() with a literal pattern: index into regexes, else -1 */
	struct value *items;	/* a list of literals: its value, built once (owned) */
};

struct gt_cel_program {
	struct node *nodes;
	size_t n_nodes, cap_nodes;
	int *kids;
	size_t n_kids, cap_kids;
	char **strings;		/* literal text and field names, owned */
	size_t n_strings, cap_strings;
	regex_t *regexes;	/* compiled literal patterns */
	size_t n_regexes, cap_regexes;
	int root;
	int n_slots;		/* cel.bind() variables */
};

/* ---------------------------------------------------------------- functions */

enum fn {
	F_SIZE,
	F_QUANTITY,
	F_IS_QUANTITY,
	F_SEMVER,
	F_IS_SEMVER,
	F_MATCHES,
	F_STARTS_WITH,
	F_ENDS_WITH,
	F_CONTAINS,
	F_LOWER_ASCII,
	F_UPPER_ASCII,
	F_COMPARE_TO,
	F_IS_GREATER_THAN,
	F_IS_LESS_THAN,
	F_AS_INTEGER,
	F_AS_APPROXIMATE_FLOAT,
	F_IS_INTEGER,
	F_SIGN,
	F_ADD,
	F_SUB,
	F_MAJOR,
	F_MINOR,
	F_PATCH,
};

#define BIT(t) (1u << (t))
#define ANY_ARG 0xffffffffu

/*
 * One row per function: the receiver types it takes (0: a global function,
 * not a method), its arguments' types and its result. A DYN receiver or
 * argument is checked when evaluated.
 */
struct fn_spec {
	const char *name;
	enum fn fn;
	unsigned receivers;	/* BIT(type) mask; 0 for a global function */
	int n_args;
	unsigned args[2];
	enum type result;
};

static const struct fn_spec fns[] = {
	{ "size", F_SIZE, 0, 1, { BIT(T_STRING) | BIT(T_LIST) | BIT(T_ATTRS) | BIT(T_CAPS) |
				   BIT(T_ATTR_DOMAINS) | BIT(T_CAP_DOMAINS) }, T_INT },
	{ "size", F_SIZE, BIT(T_STRING) | BIT(T_LIST) | BIT(T_ATTRS) | BIT(T_CAPS) |
			  BIT(T_ATTR_DOMAINS) | BIT(T_CAP_DOMAINS), 0, { 0 }, T_INT },
	{ "quantity", F_QUANTITY, 0, 1, { BIT(T_STRING) }, T_QUANTITY },
	{ "isQuantity", F_IS_QUANTITY, 0, 1, { BIT(T_STRING) }, T_BOOL },
	{ "semver", F_SEMVER, 0, 1, { BIT(T_STRING) }, T_SEMVER },
	{ "isSemver", F_IS_SEMVER, 0, 1, { BIT(T_STRING) }, T_BOOL },
	{ "matches", F_MATCHES, 0, 2, { BIT(T_STRING), BIT(T_STRING) }, T_BOOL },
	{ "matches", F_MATCHES, BIT(T_STRING), 1, { BIT(T_STRING) }, T_BOOL },
	{ "startsWith", F_STARTS_WITH, BIT(T_STRING), 1, { BIT(T_STRING) }, T_BOOL },
	{ "endsWith", F_ENDS_WITH, BIT(T_STRING), 1, { BIT(T_STRING) }, T_BOOL },
	{ "contains", F_CONTAINS, BIT(T_STRING), 1, { BIT(T_STRING) }, T_BOOL },
	{ "lowerAscii", F_LOWER_ASCII, BIT(T_STRING), 0, { 0 }, T_STRING },
	{ "upperAscii", F_UPPER_ASCII, BIT(T_STRING), 0, { 0 }, T_STRING },
	{ "compareTo", F_COMPARE_TO, BIT(T_QUANTITY) | BIT(T_SEMVER), 1,
	  { BIT(T_QUANTITY) | BIT(T_SEMVER) }, T_INT },
	{ "isGreaterThan", F_IS_GREATER_THAN, BIT(T_QUANTITY) | BIT(T_SEMVER), 1,
	  { BIT(T_QUANTITY) | BIT(T_SEMVER) }, T_BOOL },
	{ "isLessThan", F_IS_LESS_THAN, BIT(T_QUANTITY) | BIT(T_SEMVER), 1,
	  { BIT(T_QUANTITY) | BIT(T_SEMVER) }, T_BOOL },
	{ "asInteger", F_AS_INTEGER, BIT(T_QUANTITY), 0, { 0 }, T_INT },
	{ "asApproximateFloat", F_AS_APPROXIMATE_FLOAT, BIT(T_QUANTITY), 0, { 0 }, T_DOUBLE },
	{ "isInteger", F_IS_INTEGER, BIT(T_QUANTITY), 0, { 0 }, T_BOOL },
	{ "sign", F_SIGN, BIT(T_QUANTITY), 0, { 0 }, T_INT },
	{ "add", F_ADD, BIT(T_QUANTITY), 1, { BIT(T_QUANTITY) | BIT(T_INT) }, T_QUANTITY },
	{ "sub", F_SUB, BIT(T_QUANTITY), 1, { BIT(T_QUANTITY) | BIT(T_INT) }, T_QUANTITY },
	{ "major", F_MAJOR, BIT(T_SEMVER), 0, { 0 }, T_INT },
	{ "minor", F_MINOR, BIT(T_SEMVER), 0, { 0 }, T_INT },
	{ "patch", F_PATCH, BIT(T_SEMVER), 0, { 0 }, T_INT },
};

/* CEL's macros and functions Gantry does not take: named as such in the error, not as typos. */
static const char *const unsupported_macros[] = { "all", "exists", "exists_one", "map", "filter" };
static const char *const unsupported_functions[] = {
	/* conversions and types */
	"int", "uint", "double", "string", "bytes", "bool", "type", "dyn", "duration", "timestamp",
	/* cel-go's string extension beyond lowerAscii/upperAscii */
	"charAt", "indexOf", "lastIndexOf", "replace", "split", "substring", "trim", "join", "format",
	"quote", "reverse",
	/* Kubernetes' other libraries */
	"url", "isURL", "ip", "isIP", "cidr", "isCIDR", "sum", "min", "max", "isSorted", "indexOf",
};

/* ---------------------------------------------------------------- lexer */

enum tok {
	K_EOF, K_INT, K_DOUBLE, K_STRING, K_IDENT, K_TRUE, K_FALSE, K_NULL, K_IN,
	K_EQ, K_NE, K_LT, K_LE, K_GT, K_GE, K_AND, K_OR, K_NOT, K_QUESTION, K_COLON,
	K_LPAREN, K_RPAREN, K_LBRACKET, K_RBRACKET, K_LBRACE, K_RBRACE, K_DOT, K_COMMA,
	K_PLUS, K_MINUS, K_STAR, K_SLASH, K_PERCENT,
};

struct parser {
	const char *src;
	size_t pos;		/* of the next token's first byte */
	/* the current token */
	enum tok tok;
	int col;
	const char *text;	/* IDENT: start in src */
	size_t text_len;
	uint64_t u;		/* INT: magnitude (up to 2^63) */
	double d;
	char *str;		/* STRING: decoded, owned until taken */
	size_t str_len;
	/* result */
	struct gt_cel_program *prog;
	char *err;
	size_t errlen;
	bool failed;
	int depth;
	const char *vars[MAX_VARS];	/* cel.bind() names in scope, innermost last */
	size_t var_len[MAX_VARS];
	int var_slot[MAX_VARS];
	enum type var_type[MAX_VARS];
	int n_vars;
};

static const char *const reserved[] = {
	"as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
	"loop", "package", "namespace", "return", "var", "void", "while",
};

__attribute__((format(printf, 3, 4))) static void fail_at(struct parser *p, int col,
							  const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	if (!p->err || !p->errlen)
		return;
	int n = snprintf(p->err, p->errlen, "column %d: ", col);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append code point @cp to @buf as UTF-8 (@buf has room for 4 more bytes). */
static size_t put_utf8(char *buf, uint32_t cp)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xc0 | (cp >> 6));
		buf[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | (cp >> 12));
		buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | (cp >> 18));
	buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	buf[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * A string literal starting at p->pos (its opening quote, after any r/R
 * prefix): '...', "...", '''...''' or """...""", raw or with CEL's escapes.
 */
static void lex_string(struct parser *p, bool raw)
{
	const char *s = p->src;
	size_t i = p->pos;
	char q = s[i];
	bool triple = s[i + 1] == q && s[i + 2] == q;
	i += triple ? 3 : 1;
	size_t cap = 16, n = 0;
	char *out = gt_xmalloc(cap);
	for (;;) {
		if (n + 5 > cap) {
			cap *= 2;
			out = gt_xrealloc(out, cap);
		}
		char c = s[i];
		int col = (int)i + 1;
		if (!c) {
			fail_at(p, p->col, "unterminated string literal");
			goto bad;
		}
		if (c == q && (!triple || (s[i + 1] == q && s[i + 2] == q))) {
			i += triple ? 3 : 1;
			break;
		}
		if ((c == '\n' || c == '\r') && !triple) {
			fail_at(p, p->col, "unterminated string literal");
			goto bad;
		}
		if (c != '\\' || raw) {
			out[n++] = c;
			i++;
			continue;
		}
		c = s[++i];
		uint32_t cp;
		int digits = 0, base = 16;
		switch (c) {
		case 'a': out[n++] = '\a'; i++; continue;
		case 'b': out[n++] = '\b'; i++; continue;
		case 'f': out[n++] = '\f'; i++; continue;
		case 'n': out[n++] = '\n'; i++; continue;
		case 'r': out[n++] = '\r'; i++; continue;
		case 't': out[n++] = '\t'; i++; continue;
		case 'v': out[n++] = '\v'; i++; continue;
		case '\\': case '\'': case '"': case '`': case '?':
			out[n++] = c;
			i++;
			continue;
		case 'x': case 'X': digits = 2; i++; break;
		case 'u': digits = 4; i++; break;
		case 'U': digits = 8; i++; break;
		case '0': case '1': case '2': case '3':
			digits = 3;
			base = 8;
			break;
		default:
			fail_at(p, col, "invalid escape sequence in string literal");
			goto bad;
		}
		cp = 0;
		for (int k = 0; k < digits; k++) {
			int v = hex_value(s[i]);
			if (v < 0 || v >= base) {
				fail_at(p, col, "invalid escape sequence in string literal");
				goto bad;
			}
			cp = cp * (uint32_t)base + (uint32_t)v;
			i++;
		}
		if (cp == 0) {
			fail_at(p, col, "a NUL character in a string literal is not supported");
			goto bad;
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
			fail_at(p, col, "invalid code point in string literal");
			goto bad;
		}
		/* \x and octal escapes are bytes in bytes literals, code points in strings */
		n += put_utf8(out + n, cp);
	}
	out[n] = '\0';
	p->str = out;
	p->str_len = n;
	p->tok = K_STRING;
	p->pos = i;
	return;
bad:
	free(out);
	p->tok = K_EOF;
}

static void lex_number(struct parser *p)
{
	const char *s = p->src;
	size_t i = p->pos;
	if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		uint64_t v = 0;
		size_t start = i;
		for (; hex_value(s[i]) >= 0; i++) {
			if (v > (UINT64_C(1) << 63) >> 4) {
				fail_at(p, p->col, "integer literal out of range");
				return;
			}
			v = v * 16 + (uint64_t)hex_value(s[i]);
		}
		if (i == start) {
			fail_at(p, p->col, "invalid hexadecimal literal");
			return;
		}
		p->u = v;
		p->tok = K_INT;
	} else {
		size_t start = i;
		while (is_digit(s[i]))
			i++;
		bool is_double = false;
		if (s[i] == '.' && is_digit(s[i + 1])) {
			is_double = true;
			for (i++; is_digit(s[i]); i++)
				;
		}
		if (s[i] == 'e' || s[i] == 'E') {
			size_t j = i + 1;
			if (s[j] == '+' || s[j] == '-')
				j++;
			if (is_digit(s[j])) {
				is_double = true;
				for (i = j; is_digit(s[i]); i++)
					;
			}
		}
		if (is_double) {
			char buf[64];
			if (i - start >= sizeof(buf)) {
				fail_at(p, p->col, "double literal too long");
				return;
			}
			memcpy(buf, s + start, i - start);
			buf[i - start] = '\0';
			p->d = strtod(buf, NULL);
			if (!(p->d - p->d == 0)) {
				fail_at(p, p->col, "double literal out of range");
				return;
			}
			p->tok = K_DOUBLE;
		} else {
			uint64_t v = 0;
			for (size_t k = start; k < i; k++) {
				uint64_t digit = (uint64_t)(s[k] - '0');
				if (v > ((UINT64_C(1) << 63) - digit) / 10) {
					fail_at(p, p->col, "integer literal out of range");
					return;
				}
				v = v * 10 + digit;
			}
			p->u = v;
			p->tok = K_INT;
		}
	}
	if (s[i] == 'u' || s[i] == 'U') {
		fail_at(p, p->col, "unsigned integer literals are not supported by Gantry's CEL subset");
		return;
	}
	if (is_ident_start(s[i]) || is_digit(s[i]) || s[i] == '.') {
		fail_at(p, (int)i + 1, "invalid number literal");
		return;
	}
	p->pos = i;
}

/* Read the next token into p->tok (K_EOF with p->failed on a bad one). */
static void next(struct parser *p)
{
	free(p->str);
	p->str = NULL;
	if (p->failed) {
		p->tok = K_EOF;
		return;
	}
	const char *s = p->src;
	for (;;) {
		char c = s[p->pos];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f')
			p->pos++;
		else if (c == '/' && s[p->pos + 1] == '/')
			while (s[p->pos] && s[p->pos] != '\n')
				p->pos++;
		else
			break;
	}
	size_t i = p->pos;
	char c = s[i];
	p->col = (int)i + 1;
	p->tok = K_EOF;
	if (!c)
		return;
	if (c == '"' || c == '\'') {
		lex_string(p, false);
		return;
	}
	if ((c == 'r' || c == 'R') && (s[i + 1] == '"' || s[i + 1] == '\'')) {
		p->pos++;
		lex_string(p, true);
		return;
	}
	if ((c == 'b' || c == 'B') && (s[i + 1] == '"' || s[i + 1] == '\'' ||
				       ((s[i + 1] == 'r' || s[i + 1] == 'R') &&
					(s[i + 2] == '"' || s[i + 2] == '\'')))) {
		fail_at(p, p->col, "bytes literals are not supported by Gantry's CEL subset");
		return;
	}
	if (is_digit(c) || (c == '.' && is_digit(s[i + 1]))) {
		lex_number(p);
		return;
	}
	if (is_ident_start(c)) {
		size_t j = i;
		while (is_ident_start(s[j]) || is_digit(s[j]))
			j++;
		p->text = s + i;
		p->text_len = j - i;
		p->pos = j;
		p->tok = K_IDENT;
		static const struct { const char *w; enum tok t; } words[] = {
			{ "true", K_TRUE }, { "false", K_FALSE }, { "null", K_NULL }, { "in", K_IN },
		};
		for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
			if (strlen(words[k].w) == p->text_len && !memcmp(words[k].w, p->text, p->text_len))
				p->tok = words[k].t;
		return;
	}
	static const struct { const char *op; enum tok t; } ops[] = {
		{ "==", K_EQ }, { "!=", K_NE }, { "<=", K_LE }, { ">=", K_GE }, { "&&", K_AND },
		{ "||", K_OR }, { "<", K_LT },	{ ">", K_GT },	{ "!", K_NOT }, { "?", K_QUESTION },
		{ ":", K_COLON }, { "(", K_LPAREN }, { ")", K_RPAREN }, { "[", K_LBRACKET },
		{ "]", K_RBRACKET }, { "{", K_LBRACE }, { "}", K_RBRACE }, { ".", K_DOT },
		{ ",", K_COMMA }, { "+", K_PLUS }, { "-", K_MINUS }, { "*", K_STAR },
		{ "/", K_SLASH }, { "%", K_PERCENT },
	};
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		size_t len = strlen(ops[k].op);
		if (!strncmp(s + i, ops[k].op, len)) {
			p->pos += len;
			p->tok = ops[k].t;
			return;
		}
	}
	if (c == '=' || c == '&' || c == '|')
		fail_at(p, p->col, "unexpected '%c' (did you mean '%c%c'?)", c, c, c);
	else if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
		fail_at(p, p->col, "unexpected character '%c'", c);
	else
		fail_at(p, p->col, "unexpected byte 0x%02x", (unsigned char)c);
}

static bool ident_is(const struct parser *p, const char *word)
{
	return p->tok == K_IDENT && strlen(word) == p->text_len && !memcmp(word, p->text, p->text_len);
}

/* ---------------------------------------------------------------- parser */

static int add_node(struct parser *p, enum kind kind, enum type type, int col)
{
	struct gt_cel_program *g = p->prog;
	GT_GROW(g->nodes, g->n_nodes + 1, g->cap_nodes);
	struct node *n = &g->nodes[g->n_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->type = type;
	n->col = col;
	n->a = n->b = n->c = -1;
	n->regex = -1;
	return (int)g->n_nodes++;
}

static struct node *N(struct parser *p, int i)
{
	return &p->prog->nodes[i];
}

/* Keep @s (owned) for the program's life; returns it. */
static char *keep_string(struct parser *p, char *s)
{
	struct gt_cel_program *g = p->prog;
	GT_GROW(g->strings, g->n_strings + 1, g->cap_strings);
	g->strings[g->n_strings++] = s;
	return s;
}

/* kids[] for the @n node indices in @tmp */
static int add_kids(struct parser *p, const int *tmp, int n)
{
	struct gt_cel_program *g = p->prog;
	GT_GROW(g->kids, g->n_kids + (size_t)n + 1, g->cap_kids);
	int first = (int)g->n_kids;
	for (int i = 0; i < n; i++)
		g->kids[g->n_kids++] = tmp[i];
	return first;
}

static int parse_expr(struct parser *p);

static int enter(struct parser *p)
{
	if (++p->depth > MAX_DEPTH) {
		fail_at(p, p->col, "expression nests deeper than %d levels", MAX_DEPTH);
		return -1;
	}
	return 0;
}


static bool expect(struct parser *p, enum tok t, const char *what)
{
	if (p->failed)
		return false;
	if (p->tok != t) {
		if (p->tok == K_EOF)
			fail_at(p, p->col, "expected %s, found the end of the expression", what);
		else
			fail_at(p, p->col, "expected %s", what);
		return false;
	}
	next(p);
	return true;
}

/* Types a value of static type @t can be at run time. */
static bool may_be(enum type t, enum type want)
{
	return t == T_DYN || t == want;
}

static bool is_number(enum type t)
{
	return t == T_INT || t == T_DOUBLE;
}

/*
 * Parse a comma-separated list of expressions up to @close into *@out
 * (allocated: the caller frees it). Returns the count, or -1 on failure.
 */
static int parse_args(struct parser *p, enum tok close, int **out)
{
	int n = 0;
	size_t cap = 0;
	*out = NULL;
	if (p->tok == close) {
		next(p);
		return 0;
	}
	for (;;) {
		int e = parse_expr(p);
		if (e < 0 || p->failed)
			return -1;
		GT_GROW(*out, (size_t)n + 1, cap);
		(*out)[n++] = e;
		if (p->tok == K_COMMA) {
			next(p);
			if (p->tok == close && close == K_RBRACKET) {	/* CEL allows a trailing comma in lists */
				next(p);
				return n;
			}
			continue;
		}
		if (!expect(p, close, close == K_RPAREN ? "',' or ')'" : "',' or ']'"))
			return -1;
		return n;
	}
}

#define MAX_ARGS 64

/*
 * A backreference (\1..\9) in @re? glibc takes them in extended
 * expressions, and they can make matching exponential in the subject; RE2,
 * which Kubernetes matches with, has none. Refused, so matching stays
 * polynomial for any claim's pattern.
 */
#define BACKREFERENCE_MSG "backreferences are not supported (RE2, Kubernetes' regular expressions, has none)"
#define REPETITION_MSG "bad repetition operator (RE2, Kubernetes' regular expressions, refuses a repetition of a repetition)"

static bool is_quantifier(char c)
{
	return c == '*' || c == '+' || c == '?' || c == '{';
}

/*
 * Why RE2 would refuse @re, or NULL: a backreference, or a quantifier right after another
 * ("a++", "a*{2}"), which RE2 refuses and which makes the C library's regcomp() build a tree
 * exponential in the run's length. "x*?" (a lazy quantifier) and bracket expressions pass.
 */
static const char *regex_refused(const char *re)
{
	bool after_quantifier = false;
	for (; *re; re++) {
		if (*re == '\\') {
			if (re[1] >= '1' && re[1] <= '9')
				return BACKREFERENCE_MSG;
			if (re[1])
				re++;	/* an escaped character, "\\" included */
			after_quantifier = false;
		} else if (*re == '[') {
			re += re[1] == ']' ? 1 : 0;	/* "[]...]" */
			while (re[1] && re[1] != ']')
				re++;
			if (re[1])
				re++;
			after_quantifier = false;
		} else if (is_quantifier(*re)) {
			if (after_quantifier && !(*re == '?' && re[-1] != '?'))
				return REPETITION_MSG;
			if (*re == '{')
				while (re[1] && re[1] != '}')
					re++;
			if (*re != '{' && re[1] == '}')
				re++;
			after_quantifier = true;
		} else {
			after_quantifier = false;
		}
	}
	return NULL;
}

static bool check_regex(struct parser *p, int call, int pattern)
{
	struct node *pat = N(p, pattern);
	if (pat->kind != N_LITERAL)
		return true;
	const char *refused = regex_refused(pat->lit.s);
	if (refused) {
		fail_at(p, pat->col, "invalid regular expression '%s': %s", pat->lit.s, refused);
		return false;
	}
	struct gt_cel_program *g = p->prog;
	GT_GROW(g->regexes, g->n_regexes + 1, g->cap_regexes);
	int rc = regcomp(&g->regexes[g->n_regexes], pat->lit.s, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[128];
		regerror(rc, &g->regexes[g->n_regexes], msg, sizeof(msg));
		regfree(&g->regexes[g->n_regexes]);
		fail_at(p, pat->col, "invalid regular expression '%s': %s", pat->lit.s, msg);
		return false;
	}
	N(p, call)->regex = (int)g->n_regexes++;
	return true;
}

/*
 * A literal argument checked now, so that a bad one is a compile error with
 * its column: quantity("80Gi"), semver("1.2.3").
 */
static bool parse_quantity_text(const char *s, int64_t *milli);
static bool parse_semver_text(const char *s, size_t len, struct semver *v);

/* name(args) or receiver.name(args); the name is at @col, the args' '(' read */
static int parse_call(struct parser *p, int receiver, const char *name, size_t name_len, int col)
{
	char fname[32];
	snprintf(fname, sizeof(fname), "%.*s", (int)(name_len < 31 ? name_len : 31), name);
	for (size_t i = 0; i < sizeof(unsupported_macros) / sizeof(unsupported_macros[0]); i++)
		if (!strcmp(fname, unsupported_macros[i]) && receiver >= 0) {
			fail_at(p, col, "macro '%s' is not supported by Gantry's CEL subset", fname);
			return -1;
		}
	if (!strcmp(fname, "has") && receiver < 0) {
		int arg = parse_expr(p);
		if (p->failed || !expect(p, K_RPAREN, "')' after has()'s argument"))
			return -1;
		if (N(p, arg)->kind != N_SELECT) {
			fail_at(p, N(p, arg)->col, "invalid argument to has() macro: it takes a field selection such as has(device.attributes[\"domain\"].name)");
			return -1;
		}
		int n = add_node(p, N_HAS, T_BOOL, col);
		N(p, n)->a = arg;
		return n;
	}
	int *arg_list;
	int n_args = parse_args(p, K_RPAREN, &arg_list);
	if (n_args < 0) {
		free(arg_list);
		return -1;
	}
	int args[2] = { -1, -1 };	/* every function takes at most two */
	for (int k = 0; k < n_args && k < 2; k++)
		args[k] = arg_list[k];
	int first = add_kids(p, arg_list, n_args);
	free(arg_list);
	enum type rtype = receiver >= 0 ? N(p, receiver)->type : T_DYN;
	const struct fn_spec *match = NULL;
	bool known = false, arity = false;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		const struct fn_spec *f = &fns[i];
		if (strcmp(f->name, fname))
			continue;
		known = true;
		if ((f->receivers != 0) != (receiver >= 0) || f->n_args != n_args)
			continue;
		arity = true;
		if (receiver >= 0 && rtype != T_DYN && !(f->receivers & BIT(rtype)))
			continue;
		bool ok = true;
		for (int k = 0; k < n_args; k++) {
			enum type at = N(p, args[k])->type;
			if (at != T_DYN && !(f->args[k] & BIT(at)))
				ok = false;
		}
		if (ok) {
			match = f;
			break;
		}
	}
	if (!match) {
		bool unsupported = false;
		for (size_t i = 0; i < sizeof(unsupported_functions) / sizeof(unsupported_functions[0]); i++)
			unsupported = unsupported || !strcmp(fname, unsupported_functions[i]);
		if (unsupported && !known)
			fail_at(p, col, "function '%s' is not supported by Gantry's CEL subset", fname);
		else if (!known)
			fail_at(p, col, "unknown function '%s'", fname);
		else if (!arity)
			fail_at(p, col, "function '%s' does not take %d argument%s%s", fname, n_args,
				n_args == 1 ? "" : "s", receiver >= 0 ? " as a method" : " as a global function");
		else
			fail_at(p, col, "no matching overload for '%s' on %s", fname,
				receiver >= 0 ? type_names[rtype] : "these argument types");
		return -1;
	}
	if ((match->fn == F_COMPARE_TO || match->fn == F_IS_GREATER_THAN || match->fn == F_IS_LESS_THAN) &&
	    rtype != T_DYN && N(p, args[0])->type != T_DYN && N(p, args[0])->type != rtype) {
		fail_at(p, col, "no matching overload for '%s' applied to (%s, %s)", fname, type_names[rtype],
			type_names[N(p, args[0])->type]);
		return -1;
	}
	int n = add_node(p, N_CALL, match->result, col);
	N(p, n)->op = (int)match->fn;
	N(p, n)->a = receiver;
	N(p, n)->first = first;
	N(p, n)->n = n_args;
	/* literal arguments are checked once, here */
	/* of a literal, quantity() and semver() are literals: checked and parsed once, here */
	if (match->fn == F_QUANTITY && N(p, args[0])->kind == N_LITERAL) {
		int64_t milli;
		if (!parse_quantity_text(N(p, args[0])->lit.s, &milli)) {
			fail_at(p, N(p, args[0])->col, "invalid quantity '%s'", N(p, args[0])->lit.s);
			return -1;
		}
		N(p, n)->kind = N_LITERAL;
		N(p, n)->lit = (struct value){ .t = T_QUANTITY, .i = milli };
	}
	if (match->fn == F_SEMVER && N(p, args[0])->kind == N_LITERAL) {
		struct value v = { .t = T_SEMVER };
		const struct value *lit = &N(p, args[0])->lit;	/* the version's text stays the program's */
		if (!parse_semver_text(lit->s, lit->len, &v.v)) {
			fail_at(p, N(p, args[0])->col, "invalid semver '%s'", lit->s);
			return -1;
		}
		N(p, n)->kind = N_LITERAL;
		N(p, n)->lit = v;
	}
	if (match->fn == F_MATCHES && !check_regex(p, n, args[n_args - 1]))
		return -1;
	return n;
}

/* cel.bind(name, init, body): the "cel." and "bind(" already read */
static int parse_bind(struct parser *p, int col)
{
	if (p->tok != K_IDENT) {
		fail_at(p, p->col, "cel.bind() takes a variable name first");
		return -1;
	}
	const char *name = p->text;
	size_t len = p->text_len;
	int name_col = p->col;
	if ((len == 6 && !memcmp(name, "device", 6)) || (len == 3 && !memcmp(name, "cel", 3))) {
		fail_at(p, name_col, "cel.bind() cannot rebind '%.*s'", (int)len, name);
		return -1;
	}
	if (p->n_vars == MAX_VARS || p->prog->n_slots == MAX_SLOTS) {
		fail_at(p, name_col, "more than %d nested or %d cel.bind() variables in all", MAX_VARS,
			MAX_SLOTS);
		return -1;
	}
	next(p);
	if (!expect(p, K_COMMA, "',' after cel.bind()'s variable"))
		return -1;
	int init = parse_expr(p);
	if (p->failed || !expect(p, K_COMMA, "',' after cel.bind()'s value"))
		return -1;
	int slot = p->prog->n_slots++;
	p->vars[p->n_vars] = name;
	p->var_len[p->n_vars] = len;
	p->var_slot[p->n_vars] = slot;
	p->var_type[p->n_vars] = N(p, init)->type;
	p->n_vars++;
	int body = parse_expr(p);
	p->n_vars--;
	if (p->failed || !expect(p, K_RPAREN, "')' after cel.bind()'s expression"))
		return -1;
	int n = add_node(p, N_BIND, N(p, body)->type, col);
	N(p, n)->op = slot;
	N(p, n)->a = init;
	N(p, n)->b = body;
	return n;
}

static int parse_primary(struct parser *p)
{
	int col = p->col;
	int n;
	switch (p->tok) {
	case K_INT:
		if (p->u > (uint64_t)INT64_MAX) {
			fail_at(p, col, "integer literal out of range");
			return -1;
		}
		n = add_node(p, N_LITERAL, T_INT, col);
		N(p, n)->lit.t = T_INT;
		N(p, n)->lit.i = (int64_t)p->u;
		next(p);
		return n;
	case K_DOUBLE:
		n = add_node(p, N_LITERAL, T_DOUBLE, col);
		N(p, n)->lit.t = T_DOUBLE;
		N(p, n)->lit.d = p->d;
		next(p);
		return n;
	case K_STRING:
		n = add_node(p, N_LITERAL, T_STRING, col);
		N(p, n)->lit.t = T_STRING;
		N(p, n)->lit.s = keep_string(p, p->str);
		N(p, n)->lit.len = p->str_len;
		p->str = NULL;
		next(p);
		return n;
	case K_TRUE:
	case K_FALSE:
		n = add_node(p, N_LITERAL, T_BOOL, col);
		N(p, n)->lit.t = T_BOOL;
		N(p, n)->lit.b = p->tok == K_TRUE;
		next(p);
		return n;
	case K_NULL:
		n = add_node(p, N_LITERAL, T_NULL, col);
		N(p, n)->lit.t = T_NULL;
		next(p);
		return n;
	case K_LPAREN:
		next(p);
		n = parse_expr(p);
		if (p->failed || !expect(p, K_RPAREN, "')'"))
			return -1;
		return n;
	case K_LBRACKET: {
		next(p);
		int *elems;
		int count = parse_args(p, K_RBRACKET, &elems);
		if (count < 0) {
			free(elems);
			return -1;
		}
		n = add_node(p, N_LIST, T_LIST, col);
		N(p, n)->first = add_kids(p, elems, count);
		N(p, n)->n = count;
		bool literals = count > 0;
		for (int k = 0; k < count; k++)
			literals = literals && N(p, elems[k])->kind == N_LITERAL;
		if (literals) {
			/* ["1g.5gb", "2g.10gb"]: the value built once, not per device */
			struct value *items = gt_xcalloc((size_t)count, sizeof(*items));
			for (int k = 0; k < count; k++)
				items[k] = N(p, elems[k])->lit;
			N(p, n)->items = items;
		}
		free(elems);
		return n;
	}
	case K_LBRACE:
		fail_at(p, col, "map literals are not supported by Gantry's CEL subset");
		return -1;
	case K_DOT:
		fail_at(p, col, "qualified names starting with '.' are not supported by Gantry's CEL subset");
		return -1;
	case K_IDENT: {
		const char *name = p->text;
		size_t len = p->text_len;
		for (size_t k = 0; k < sizeof(reserved) / sizeof(reserved[0]); k++)
			if (strlen(reserved[k]) == len && !memcmp(reserved[k], name, len)) {
				fail_at(p, col, "reserved identifier '%s'", reserved[k]);
				return -1;
			}
		next(p);
		if (p->tok == K_LPAREN) {
			next(p);
			return parse_call(p, -1, name, len, col);
		}
		if (len == 3 && !memcmp(name, "cel", 3) && p->tok == K_DOT) {
			next(p);
			if (ident_is(p, "bind")) {
				next(p);
				if (!expect(p, K_LPAREN, "'(' after cel.bind"))
					return -1;
				return parse_bind(p, col);
			}
			fail_at(p, p->col, "only cel.bind() of the cel namespace is supported by Gantry's CEL subset");
			return -1;
		}
		for (int v = p->n_vars - 1; v >= 0; v--)
			if (p->var_len[v] == len && !memcmp(p->vars[v], name, len)) {
				n = add_node(p, N_VAR, p->var_type[v], col);
				N(p, n)->op = p->var_slot[v];
				return n;
			}
		if (len == 6 && !memcmp(name, "device", 6))
			return add_node(p, N_DEVICE, T_DEVICE, col);
		fail_at(p, col, "undeclared reference to '%.*s' (the only variable is 'device')",
			(int)(len < 64 ? len : 64), name);
		return -1;
	}
	case K_EOF:
		if (!p->failed)
			fail_at(p, col, "expected an expression, found the end of the expression");
		return -1;
	default:
		fail_at(p, col, "expected an expression");
		return -1;
	}
}

/* The field @name of a value of type @t: the result's static type, or -1 (an error set). */
static int select_type(struct parser *p, enum type t, const char *name, int col)
{
	switch (t) {
	case T_DEVICE:
		if (!strcmp(name, "driver"))
			return T_STRING;
		if (!strcmp(name, "attributes"))
			return T_ATTR_DOMAINS;
		if (!strcmp(name, "capacity"))
			return T_CAP_DOMAINS;
		if (!strcmp(name, "allowMultipleAllocations"))
			return T_BOOL;
		fail_at(p, col, "undefined field '%s' of device (it has driver, attributes, capacity and allowMultipleAllocations)", name);
		return -1;
	case T_ATTR_DOMAINS:
		return T_ATTRS;
	case T_CAP_DOMAINS:
		return T_CAPS;
	case T_ATTRS:
		return T_DYN;
	case T_CAPS:
		return T_QUANTITY;
	case T_DYN:
		return T_DYN;
	default:
		fail_at(p, col, "type '%s' does not have field '%s'", type_names[t], name);
		return -1;
	}
}

static int parse_member(struct parser *p)
{
	int n = parse_primary(p), extra = 0;
	while (!p->failed && n >= 0) {
		/* each selection, index and call is one level deeper */
		if ((p->tok == K_DOT || p->tok == K_LBRACKET) && enter(p))
			return -1;
		extra++;
		if (p->tok == K_DOT) {
			next(p);
			if (p->tok != K_IDENT) {
				fail_at(p, p->col, "expected a field or method name after '.'");
				return -1;
			}
			const char *name = p->text;
			size_t len = p->text_len;
			int col = p->col;
			next(p);
			if (p->tok == K_LPAREN) {
				next(p);
				n = parse_call(p, n, name, len, col);
				if (n < 0)
					return -1;
				continue;
			}
			char *field = keep_string(p, gt_xstrndup(name, len));
			int t = select_type(p, N(p, n)->type, field, col);
			if (t < 0)
				return -1;
			int s = add_node(p, N_SELECT, (enum type)t, col);
			N(p, s)->a = n;
			N(p, s)->lit.t = T_STRING;
			N(p, s)->lit.s = field;
			N(p, s)->lit.len = len;
			n = s;
		} else if (p->tok == K_LBRACKET) {
			int col = p->col;
			next(p);
			int key = parse_expr(p);
			if (p->failed || !expect(p, K_RBRACKET, "']'"))
				return -1;
			enum type t = N(p, n)->type, kt = N(p, key)->type, rt;
			switch (t) {
			case T_ATTR_DOMAINS: rt = T_ATTRS; break;
			case T_CAP_DOMAINS: rt = T_CAPS; break;
			case T_ATTRS: rt = T_DYN; break;
			case T_CAPS: rt = T_QUANTITY; break;
			case T_LIST: rt = T_DYN; break;
			case T_DYN: rt = T_DYN; break;
			default:
				fail_at(p, col, "type '%s' cannot be indexed", type_names[t]);
				return -1;
			}
			bool key_ok = t == T_LIST ? may_be(kt, T_INT) : t == T_DYN || may_be(kt, T_STRING);
			if (!key_ok) {
				fail_at(p, N(p, key)->col, "no matching overload for '[]' applied to (%s, %s)",
					type_names[t], type_names[kt]);
				return -1;
			}
			int x = add_node(p, N_INDEX, rt, col);
			N(p, x)->a = n;
			N(p, x)->b = key;
			n = x;
		} else {
			extra--;
			break;
		}
	}
	p->depth -= extra;
	return p->failed ? -1 : n;
}

static int parse_unary(struct parser *p)
{
	if (enter(p))
		return -1;
	int col = p->col, n;
	if (p->tok == K_NOT) {
		next(p);
		int a = parse_unary(p);
		if (a < 0)
			goto out_fail;
		if (!may_be(N(p, a)->type, T_BOOL)) {
			fail_at(p, col, "no matching overload for '!' applied to %s", type_names[N(p, a)->type]);
			goto out_fail;
		}
		n = add_node(p, N_NOT, T_BOOL, col);
		N(p, n)->a = a;
	} else if (p->tok == K_MINUS) {
		next(p);
		if (p->tok == K_INT && p->u == (UINT64_C(1) << 63)) {
			/* -9223372036854775808 is a literal, not the negation of one */
			n = add_node(p, N_LITERAL, T_INT, col);
			N(p, n)->lit.t = T_INT;
			N(p, n)->lit.i = INT64_MIN;
			next(p);
		} else {
			int a = parse_unary(p);
			if (a < 0)
				goto out_fail;
			enum type t = N(p, a)->type;
			if (t != T_DYN && !is_number(t)) {
				fail_at(p, col, "no matching overload for '-' applied to %s", type_names[t]);
				goto out_fail;
			}
			n = add_node(p, N_NEG, t, col);
			N(p, n)->a = a;
		}
	} else {
		n = parse_member(p);
	}
	p->depth--;
	return p->failed ? -1 : n;
out_fail:
	p->depth--;
	return -1;
}

/* The static type of `a op b`, or -1 after an error. */
static int binary_type(struct parser *p, enum binop op, int a, int b, int col)
{
	enum type ta = N(p, a)->type, tb = N(p, b)->type;
	bool dyn = ta == T_DYN || tb == T_DYN;
	if (op == B_ADD && (ta == T_STRING || tb == T_STRING)) {
		fail_at(p, col, "string concatenation is not supported by Gantry's CEL subset");
		return -1;
	}
	switch (op) {
	case B_EQ:
	case B_NE:
		if (!dyn && ta != tb && !(is_number(ta) && is_number(tb)) && ta != T_NULL && tb != T_NULL)
			break;
		if (ta == T_LIST || tb == T_LIST || ta >= T_DEVICE || tb >= T_DEVICE) {
			fail_at(p, col, "'%s' on lists, maps and the device is not supported by Gantry's CEL subset",
				binop_names[op]);
			return -1;
		}
		return T_BOOL;
	case B_LT:
	case B_LE:
	case B_GT:
	case B_GE:
		if (dyn && ta != T_NULL && tb != T_NULL && ta < T_QUANTITY && tb < T_QUANTITY)
			return T_BOOL;
		if ((ta == tb && (ta == T_INT || ta == T_DOUBLE || ta == T_STRING || ta == T_BOOL)) ||
		    (is_number(ta) && is_number(tb)))
			return T_BOOL;
		if ((ta == T_QUANTITY || ta == T_SEMVER) && (ta == tb || dyn)) {
			fail_at(p, col, "no matching overload for '%s' applied to %s: compare with compareTo(), isGreaterThan() or isLessThan()",
				binop_names[op], type_names[ta]);
			return -1;
		}
		break;
	case B_IN:
		if (tb == T_LIST || tb == T_DYN)
			return T_BOOL;
		if ((tb == T_ATTRS || tb == T_CAPS || tb == T_ATTR_DOMAINS || tb == T_CAP_DOMAINS) &&
		    may_be(ta, T_STRING))
			return T_BOOL;
		break;
	case B_ADD:
	case B_SUB:
	case B_MUL:
	case B_DIV:
		if (dyn && (ta == T_DYN || is_number(ta)) && (tb == T_DYN || is_number(tb)))
			return ta == T_DYN ? tb : ta;
		if (ta == tb && is_number(ta))
			return ta;
		break;
	case B_MOD:
		if (may_be(ta, T_INT) && may_be(tb, T_INT))
			return T_INT;
		break;
	}
	fail_at(p, col, "no matching overload for '%s' applied to (%s, %s)", binop_names[op],
		type_names[ta], type_names[tb]);
	return -1;
}

static int make_binary(struct parser *p, enum binop op, int a, int b, int col)
{
	if (a < 0 || b < 0)
		return -1;
	int t = binary_type(p, op, a, b, col);
	if (t < 0)
		return -1;
	int n = add_node(p, N_BINARY, (enum type)t, col);
	N(p, n)->op = (int)op;
	N(p, n)->a = a;
	N(p, n)->b = b;
	return n;
}

static int parse_multiplication(struct parser *p)
{
	int n = parse_unary(p), extra = 0;
	while (n >= 0 && (p->tok == K_STAR || p->tok == K_SLASH || p->tok == K_PERCENT)) {
		enum binop op = p->tok == K_STAR ? B_MUL : p->tok == K_SLASH ? B_DIV : B_MOD;
		int col = p->col;
		next(p);
		if (enter(p))
			return -1;
		extra++;
		n = make_binary(p, op, n, parse_unary(p), col);
	}
	p->depth -= extra;	/* the chain's depth is its operators': released as it ends */
	return n;
}

static int parse_addition(struct parser *p)
{
	int n = parse_multiplication(p), extra = 0;
	while (n >= 0 && (p->tok == K_PLUS || p->tok == K_MINUS)) {
		enum binop op = p->tok == K_PLUS ? B_ADD : B_SUB;
		int col = p->col;
		next(p);
		if (enter(p))
			return -1;
		extra++;
		n = make_binary(p, op, n, parse_multiplication(p), col);
	}
	p->depth -= extra;
	return n;
}

static int parse_relation(struct parser *p)
{
	int n = parse_addition(p), extra = 0;
	for (;;) {
		if (n < 0)
			return -1;
		enum binop op;
		switch (p->tok) {
		case K_EQ: op = B_EQ; break;
		case K_NE: op = B_NE; break;
		case K_LT: op = B_LT; break;
		case K_LE: op = B_LE; break;
		case K_GT: op = B_GT; break;
		case K_GE: op = B_GE; break;
		case K_IN: op = B_IN; break;
		default:
			p->depth -= extra;
			return n;
		}
		int col = p->col;
		next(p);
		if (enter(p))
			return -1;
		extra++;
		n = make_binary(p, op, n, parse_addition(p), col);
	}
}

/* a && b && c (or ||) as one node with every operand: no depth for long chains */
static int parse_logical(struct parser *p, bool is_and)
{
	enum tok t = is_and ? K_AND : K_OR;
	int first = is_and ? parse_relation(p) : parse_logical(p, true);
	if (first < 0 || p->tok != t)
		return first;
	int ops[MAX_ARGS], count = 0, col = p->col;
	ops[count++] = first;
	while (p->tok == t) {
		int opcol = p->col;
		next(p);
		int e = is_and ? parse_relation(p) : parse_logical(p, true);
		if (e < 0)
			return -1;
		if (count == MAX_ARGS) {
			/* fold what we have into one operand and go on */
			int k = add_node(p, is_and ? N_AND : N_OR, T_BOOL, col);
			N(p, k)->first = add_kids(p, ops, count);
			N(p, k)->n = count;
			count = 0;
			ops[count++] = k;
			if (enter(p))
				return -1;
		}
		if (!may_be(N(p, e)->type, T_BOOL) || !may_be(N(p, ops[0])->type, T_BOOL)) {
			int bad = may_be(N(p, e)->type, T_BOOL) ? ops[0] : e;
			fail_at(p, opcol, "no matching overload for '%s' applied to %s", is_and ? "&&" : "||",
				type_names[N(p, bad)->type]);
			return -1;
		}
		ops[count++] = e;
	}
	int n = add_node(p, is_and ? N_AND : N_OR, T_BOOL, col);
	N(p, n)->first = add_kids(p, ops, count);
	N(p, n)->n = count;
	return n;
}

static int parse_expr(struct parser *p)
{
	if (enter(p))
		return -1;
	int n = parse_logical(p, false);
	if (n >= 0 && p->tok == K_QUESTION) {
		int col = p->col;
		next(p);
		int yes = parse_logical(p, false);
		int no = -1;
		if (yes >= 0 && expect(p, K_COLON, "':' in a conditional"))
			no = parse_expr(p);
		if (no < 0) {
			p->depth--;
			return -1;
		}
		if (!may_be(N(p, n)->type, T_BOOL)) {
			fail_at(p, col, "the condition of '?:' is %s, not bool", type_names[N(p, n)->type]);
			p->depth--;
			return -1;
		}
		enum type ty = N(p, yes)->type, tn = N(p, no)->type;
		enum type t = ty == tn ? ty : T_DYN;
		if (ty != tn && ty != T_DYN && tn != T_DYN && ty != T_NULL && tn != T_NULL) {
			fail_at(p, col, "the branches of '?:' differ in type (%s, %s)", type_names[ty],
				type_names[tn]);
			p->depth--;
			return -1;
		}
		int c = add_node(p, N_COND, t, col);
		N(p, c)->a = n;
		N(p, c)->b = yes;
		N(p, c)->c = no;
		n = c;
	}
	p->depth--;
	return p->failed ? -1 : n;
}

gt_cel_program *gt_cel_compile(const char *expr, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	struct parser p = { .src = expr, .err = err, .errlen = errlen };
	if (!expr) {
		fail_at(&p, 1, "no expression");
		return NULL;
	}
	size_t len = strlen(expr);
	if (len > MAX_EXPR_LEN) {
		fail_at(&p, MAX_EXPR_LEN + 1, "the expression is %zu bytes long, more than Kubernetes' limit of %d",
			len, MAX_EXPR_LEN);
		return NULL;
	}
	p.prog = gt_xcalloc(1, sizeof(*p.prog));
	next(&p);
	int root = p.failed ? -1 : parse_expr(&p);
	if (!p.failed && p.tok != K_EOF)
		fail_at(&p, p.col, "unexpected text after the expression");
	if (!p.failed && !may_be(p.prog->nodes[root].type, T_BOOL))
		fail_at(&p, p.prog->nodes[root].col, "the expression is of type %s; a selector must be bool",
			type_names[p.prog->nodes[root].type]);
	free(p.str);
	if (p.failed) {
		gt_cel_free(p.prog);
		return NULL;
	}
	p.prog->root = root;
	return p.prog;
}

void gt_cel_free(gt_cel_program *program)
{
	if (!program)
		return;
	for (size_t i = 0; i < program->n_strings; i++)
		free(program->strings[i]);
	for (size_t i = 0; i < program->n_regexes; i++)
		regfree(&program->regexes[i]);
	for (size_t i = 0; i < program->n_nodes; i++)
		free(program->nodes[i].items);
	free(program->strings);
	free(program->regexes);
	free(program->nodes);
	free(program->kids);
	free(program);
}

/* ---------------------------------------------------------------- quantities and versions */

/*
 * A quantity in milli-units, exactly: "1.5" is 1500, "80Gi" 85899345920000.
 * Finer than a thousandth ("1n") or beyond int64 milli-units (about 8Ei)
 * is refused rather than rounded: a device's capacity is in milli-units,
 * and a rounded bound would compare wrongly with it.
 */
static bool parse_quantity_text(const char *s, int64_t *milli)
{
	if (!s)
		return false;
	bool negative = *s == '-';
	const char *mag = (*s == '-' || *s == '+') ? s + 1 : s;
	if (*mag == '-' || *mag == '+')
		return false;
	int64_t up, down;
	char neg[64];
	if (snprintf(neg, sizeof(neg), "-%s", mag) >= (int)sizeof(neg))
		return false;
	/* rounded up, and (through the negative) rounded toward zero: equal when exact */
	if (gt_quantity_parse_milli(mag, &up) || gt_quantity_parse_milli(neg, &down) || up != -down)
		return false;
	*milli = negative ? -up : up;
	return true;
}

static bool parse_uint_part(const char **sp, const char *end, int64_t *out)
{
	const char *s = *sp;
	if (s >= end || !is_digit(*s))
		return false;
	if (*s == '0' && s + 1 < end && is_digit(s[1]))
		return false;	/* no leading zeros */
	int64_t v = 0;
	for (; s < end && is_digit(*s); s++) {
		if (v > (INT64_MAX - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	*sp = s;
	return true;
}

/* Semantic Versioning 2.0.0: MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], strictly. */
static bool parse_semver_text(const char *s, size_t len, struct semver *v)
{
	const char *end = s + len, *p = s;
	if (!parse_uint_part(&p, end, &v->major) || p >= end || *p++ != '.' ||
	    !parse_uint_part(&p, end, &v->minor) || p >= end || *p++ != '.' ||
	    !parse_uint_part(&p, end, &v->patch))
		return false;
	v->pre = NULL;
	v->pre_len = 0;
	if (p < end && *p == '-') {
		const char *pre = ++p;
		while (p < end && *p != '+')
			p++;
		v->pre = pre;
		v->pre_len = (size_t)(p - pre);
		/* dot-separated, non-empty identifiers of [0-9A-Za-z-]; numeric ones without leading 0 */
		const char *id = pre;
		for (const char *q = pre;; q++) {
			if (q == p || *q == '.') {
				if (q == id)
					return false;
				bool numeric = true;
				for (const char *r = id; r < q; r++)
					numeric = numeric && is_digit(*r);
				if (numeric && *id == '0' && q - id > 1)
					return false;
				if (q == p)
					break;
				id = q + 1;
				continue;
			}
			if (!is_digit(*q) && !(*q >= 'a' && *q <= 'z') && !(*q >= 'A' && *q <= 'Z') && *q != '-')
				return false;
		}
	}
	if (p < end && *p == '+') {
		const char *id = ++p;
		for (;; p++) {
			if (p == end || *p == '.') {
				if (p == id)
					return false;
				if (p == end)
					break;
				id = p + 1;
				continue;
			}
			if (!is_digit(*p) && !(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && *p != '-')
				return false;
		}
	}
	return p == end;
}

static int cmp_int(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* Precedence of prerelease identifiers (semver 2.0.0, item 11); build metadata is ignored. */
static int semver_compare(const struct semver *a, const struct semver *b)
{
	int c = cmp_int(a->major, b->major);
	if (!c)
		c = cmp_int(a->minor, b->minor);
	if (!c)
		c = cmp_int(a->patch, b->patch);
	if (c)
		return c;
	if (!a->pre_len || !b->pre_len)
		return (a->pre_len == 0) - (b->pre_len == 0);
	const char *x = a->pre, *xe = a->pre + a->pre_len, *y = b->pre, *ye = b->pre + b->pre_len;
	for (;;) {
		/* one identifier of each: [xi, x) and [yi, y) */
		const char *xi = x, *yi = y;
		while (x < xe && *x != '.')
			x++;
		while (y < ye && *y != '.')
			y++;
		size_t xl = (size_t)(x - xi), yl = (size_t)(y - yi);
		bool xn = true, yn = true;
		for (const char *r = xi; r < x; r++)
			xn = xn && is_digit(*r);
		for (const char *r = yi; r < y; r++)
			yn = yn && is_digit(*r);
		if (xn && yn)	/* numerically: no leading zeros, so longer is larger */
			c = xl != yl ? cmp_int((int64_t)xl, (int64_t)yl) : memcmp(xi, yi, xl);
		else if (xn != yn)
			c = xn ? -1 : 1;	/* numeric identifiers sort first */
		else {
			c = memcmp(xi, yi, xl < yl ? xl : yl);
			if (!c)
				c = cmp_int((int64_t)xl, (int64_t)yl);
		}
		if (c)
			return c > 0 ? 1 : -1;
		bool xmore = x < xe, ymore = y < ye;	/* a '.' and another identifier follow */
		if (!xmore || !ymore)
			return (int)xmore - (int)ymore;	/* the longer set of identifiers is larger */
		x++;
		y++;
	}
}

/* ---------------------------------------------------------------- evaluator */

struct eval {
	const struct gt_cel_program *prog;
	const gt_cel_device *dev;
	char msgs[MAX_ERRORS][200];
	int n_msgs;
	struct value slots[MAX_SLOTS];
	void **owned;		/* strings and lists made while evaluating, freed at its end */
	size_t n_owned, cap_owned;
};

__attribute__((format(printf, 3, 4))) static struct value error_at(struct eval *e, int col,
								    const char *fmt, ...)
{
	int slot = e->n_msgs < MAX_ERRORS ? e->n_msgs++ : MAX_ERRORS - 1;
	char *m = e->msgs[slot];
	int n = snprintf(m, sizeof(e->msgs[0]), "column %d: ", col);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m + n, sizeof(e->msgs[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	return (struct value){ .t = T_ERROR, .i = slot };
}

/* @mem is freed when the evaluation ends */
static void keep(struct eval *e, void *mem)
{
	GT_GROW(e->owned, e->n_owned + 1, e->cap_owned);
	e->owned[e->n_owned++] = mem;
}

static struct value v_bool(bool b)
{
	return (struct value){ .t = T_BOOL, .b = b };
}

static struct value v_int(int64_t i)
{
	return (struct value){ .t = T_INT, .i = i };
}

static struct value v_string(const char *s)
{
	return (struct value){ .t = T_STRING, .s = s, .len = strlen(s) };
}

/* "gpu.nvidia.com/productName" is in @domain (of @dlen bytes) with id @id? */
static bool name_is(const char *name, const char *domain, size_t dlen, const char *id)
{
	return name && !strncmp(name, domain, dlen) && name[dlen] == '/' && !strcmp(name + dlen + 1, id);
}

static bool in_domain(const char *name, const char *domain, size_t dlen)
{
	return name && !strncmp(name, domain, dlen) && name[dlen] == '/';
}

static const gt_cel_attribute *find_attribute(const gt_cel_device *d, const struct value *m,
					      const char *id)
{
	for (size_t i = 0; i < d->n_attributes; i++)
		if (name_is(d->attributes[i].name, m->s, m->len, id))
			return &d->attributes[i];
	return NULL;
}

static const gt_cel_capacity *find_capacity(const gt_cel_device *d, const struct value *m,
					    const char *id)
{
	for (size_t i = 0; i < d->n_capacity; i++)
		if (name_is(d->capacity[i].name, m->s, m->len, id))
			return &d->capacity[i];
	return NULL;
}

static struct value attribute_value(struct eval *e, const gt_cel_attribute *a, int col)
{
	switch (a->kind) {
	case GT_CEL_BOOL:
		return v_bool(a->b);
	case GT_CEL_INT:
		return v_int(a->i);
	case GT_CEL_STRING:
		return v_string(a->s ? a->s : "");
	case GT_CEL_VERSION: {
		struct value v = { .t = T_SEMVER };
		const char *s = a->s ? a->s : "";
		if (!parse_semver_text(s, strlen(s), &v.v))
			return error_at(e, col, "attribute '%s' is not a semantic version: '%s'", a->name, s);
		return v;
	}
	}
	return error_at(e, col, "attribute '%s' has an unknown kind", a->name);
}

/* The entry @key of map value @m (device.attributes[...], device.capacity[...] or one domain). */
static struct value map_get(struct eval *e, const struct value *m, const char *key, int col)
{
	switch (m->t) {
	case T_ATTR_DOMAINS:
	case T_CAP_DOMAINS:
		/* an unknown domain is an empty map, as in Kubernetes */
		return (struct value){ .t = m->t == T_ATTR_DOMAINS ? T_ATTRS : T_CAPS, .s = key,
				       .len = strlen(key) };
	case T_ATTRS: {
		const gt_cel_attribute *a = find_attribute(e->dev, m, key);
		if (!a)
			return error_at(e, col, "no such key: device.attributes[\"%.*s\"] has no attribute '%s'",
					(int)m->len, m->s, key);
		return attribute_value(e, a, col);
	}
	case T_CAPS: {
		const gt_cel_capacity *c = find_capacity(e->dev, m, key);
		if (!c)
			return error_at(e, col, "no such key: device.capacity[\"%.*s\"] has no capacity '%s'",
					(int)m->len, m->s, key);
		return (struct value){ .t = T_QUANTITY, .i = c->milli };
	}
	default:
		return error_at(e, col, "type '%s' has no field or key '%s'", type_names[m->t], key);
	}
}

static bool map_has(const struct eval *e, const struct value *m, const char *key)
{
	switch (m->t) {
	case T_ATTR_DOMAINS:
		for (size_t i = 0; i < e->dev->n_attributes; i++)
			if (in_domain(e->dev->attributes[i].name, key, strlen(key)))
				return true;
		return false;
	case T_CAP_DOMAINS:
		for (size_t i = 0; i < e->dev->n_capacity; i++)
			if (in_domain(e->dev->capacity[i].name, key, strlen(key)))
				return true;
		return false;
	case T_ATTRS:
		return find_attribute(e->dev, m, key) != NULL;
	case T_CAPS:
		return find_capacity(e->dev, m, key) != NULL;
	default:
		return false;
	}
}

static int64_t map_size(const struct eval *e, const struct value *m)
{
	int64_t n = 0;
	if (m->t == T_ATTRS)
		for (size_t i = 0; i < e->dev->n_attributes; i++)
			n += in_domain(e->dev->attributes[i].name, m->s, m->len);
	if (m->t == T_CAPS)
		for (size_t i = 0; i < e->dev->n_capacity; i++)
			n += in_domain(e->dev->capacity[i].name, m->s, m->len);
	if (m->t == T_ATTR_DOMAINS || m->t == T_CAP_DOMAINS) {
		/* distinct domains, in the device's order */
		bool attrs = m->t == T_ATTR_DOMAINS;
		size_t count = attrs ? e->dev->n_attributes : e->dev->n_capacity;
		for (size_t i = 0; i < count; i++) {
			const char *name = attrs ? e->dev->attributes[i].name : e->dev->capacity[i].name;
			const char *slash = name ? strchr(name, '/') : NULL;
			if (!slash)
				continue;
			size_t dlen = (size_t)(slash - name);
			bool seen = false;
			for (size_t k = 0; k < i && !seen; k++) {
				const char *other = attrs ? e->dev->attributes[k].name : e->dev->capacity[k].name;
				seen = other && !strncmp(other, name, dlen) && other[dlen] == '/';
			}
			n += !seen;
		}
	}
	return n;
}

static struct value eval(struct eval *e, int node);

static const char *vtype(const struct value *v)
{
	return type_names[v->t];
}

/* -1, 0, 1, or 2 when @a and @b are not ordered against each other */
static int compare(const struct value *a, const struct value *b)
{
	if (a->t == T_INT && b->t == T_INT)
		return cmp_int(a->i, b->i);
	if (is_number(a->t) && is_number(b->t)) {
		/* int against double: exact for every int64, as CEL's cross-type comparison is */
		if (a->t == T_DOUBLE && b->t == T_DOUBLE)
			return a->d < b->d ? -1 : a->d > b->d ? 1 : a->d == b->d ? 0 : 2;
		const struct value *iv = a->t == T_INT ? a : b, *dv = a->t == T_INT ? b : a;
		int sign = a->t == T_INT ? 1 : -1;
		double d = dv->d;
		if (d != d)
			return 2;
		int c;
		if (d >= 9223372036854775808.0)
			c = -1;
		else if (d < -9223372036854775808.0)
			c = 1;
		else {
			int64_t t = (int64_t)d;	/* toward zero */
			c = cmp_int(iv->i, t);
			if (!c)
				c = (double)t < d ? -1 : (double)t > d ? 1 : 0;
		}
		return c * sign;
	}
	if (a->t != b->t)
		return 2;
	switch (a->t) {
	case T_BOOL:
		return (a->b > b->b) - (a->b < b->b);
	case T_STRING: {
		int c = strcmp(a->s, b->s);
		return (c > 0) - (c < 0);
	}
	case T_QUANTITY:
		return cmp_int(a->i, b->i);
	case T_SEMVER:
		return semver_compare(&a->v, &b->v);
	case T_NULL:
		return 0;
	default:
		return 2;
	}
}

/* CEL's heterogeneous equality: values of different types are unequal, not an error. */
static struct value equal(struct eval *e, const struct value *a, const struct value *b, int col)
{
	if (a->t == T_LIST || b->t == T_LIST || a->t >= T_DEVICE || b->t >= T_DEVICE)
		return error_at(e, col, "'==' on lists, maps and the device is not supported by Gantry's CEL subset");
	int c = compare(a, b);
	return v_bool(c == 0);
}

static struct value arith(struct eval *e, enum binop op, const struct value *a, const struct value *b,
			  int col)
{
	if (a->t == T_INT && b->t == T_INT) {
		int64_t r;
		bool overflow = false;
		switch (op) {
		case B_ADD: overflow = __builtin_add_overflow(a->i, b->i, &r); break;
		case B_SUB: overflow = __builtin_sub_overflow(a->i, b->i, &r); break;
		case B_MUL: overflow = __builtin_mul_overflow(a->i, b->i, &r); break;
		case B_DIV:
		case B_MOD:
			if (b->i == 0)
				return error_at(e, col, op == B_DIV ? "division by zero" : "modulus by zero");
			if (a->i == INT64_MIN && b->i == -1) {
				overflow = true;
				r = 0;
				break;
			}
			r = op == B_DIV ? a->i / b->i : a->i % b->i;
			break;
		default:
			r = 0;
		}
		if (overflow)
			return error_at(e, col, "integer overflow in '%s'", binop_names[op]);
		return v_int(r);
	}
	if (a->t == T_DOUBLE && b->t == T_DOUBLE && op != B_MOD) {
		double r = op == B_ADD ? a->d + b->d : op == B_SUB ? a->d - b->d :
			   op == B_MUL ? a->d * b->d : a->d / b->d;
		return (struct value){ .t = T_DOUBLE, .d = r };
	}
	return error_at(e, col, "no matching overload for '%s' applied to (%s, %s)", binop_names[op],
			vtype(a), vtype(b));
}

static struct value eval_binary(struct eval *e, const struct node *n)
{
	enum binop op = (enum binop)n->op;
	struct value a = eval(e, n->a);
	if (a.t == T_ERROR)
		return a;
	struct value b = eval(e, n->b);
	if (b.t == T_ERROR)
		return b;
	if (op == B_IN && b.t == T_LIST) {
		bool found = false;
		for (int64_t k = 0; k < b.i; k++) {
			struct value eq = equal(e, &a, &b.items[k], n->col);
			if (eq.t == T_ERROR)
				return eq;
			found = found || eq.b;
		}
		return v_bool(found);
	}
	switch (op) {
	case B_EQ:
	case B_NE: {
		struct value r = equal(e, &a, &b, n->col);
		if (r.t == T_BOOL && op == B_NE)
			r.b = !r.b;
		return r;
	}
	case B_LT:
	case B_LE:
	case B_GT:
	case B_GE: {
		int c = compare(&a, &b);
		if (c == 2 && is_number(a.t) && is_number(b.t))
			return v_bool(false);	/* NaN is unordered: every comparison is false */
		if (c == 2 || a.t == T_QUANTITY || a.t == T_SEMVER || a.t == T_NULL)
			return error_at(e, n->col, "no matching overload for '%s' applied to (%s, %s)",
					binop_names[op], vtype(&a), vtype(&b));
		return v_bool(op == B_LT ? c < 0 : op == B_LE ? c <= 0 : op == B_GT ? c > 0 : c >= 0);
	}
	case B_IN:
		if (a.t != T_STRING || b.t < T_ATTR_DOMAINS)
			return error_at(e, n->col, "no matching overload for 'in' applied to (%s, %s)",
					vtype(&a), vtype(&b));
		return v_bool(map_has(e, &b, a.s));
	default:
		return arith(e, op, &a, &b, n->col);
	}
}

/* && and ||: the first operand that decides wins, errors or not; else the first error. */
static struct value eval_logical(struct eval *e, const struct node *n, bool is_and)
{
	struct value err = { .t = T_NULL };
	for (int k = 0; k < n->n; k++) {
		int kid = e->prog->kids[n->first + k];
		struct value v = eval(e, kid);
		if (v.t == T_BOOL) {
			if (v.b != is_and)
				return v;
			continue;
		}
		if (v.t != T_ERROR)
			v = error_at(e, e->prog->nodes[kid].col, "no matching overload for '%s' applied to %s",
				     is_and ? "&&" : "||", vtype(&v));
		if (err.t != T_ERROR)
			err = v;
	}
	return err.t == T_ERROR ? err : v_bool(is_and);
}

static struct value as_string_arg(struct eval *e, struct value v, const char *fn, int col)
{
	if (v.t != T_STRING && v.t != T_ERROR)
		return error_at(e, col, "no matching overload for '%s' applied to %s", fn, vtype(&v));
	return v;
}

/* CEL's size of a string: code points, not bytes */
static int64_t utf8_count(const char *s)
{
	int64_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static struct value eval_call(struct eval *e, const struct node *n)
{
	const struct gt_cel_program *g = e->prog;
	enum fn fn = (enum fn)n->op;
	struct value recv = { .t = T_NULL }, args[2] = { { .t = T_NULL }, { .t = T_NULL } };
	const char *name = NULL;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (fns[i].fn == fn)
			name = fns[i].name;
	if (n->a >= 0) {
		recv = eval(e, n->a);
		if (recv.t == T_ERROR)
			return recv;
	}
	for (int k = 0; k < n->n && k < 2; k++) {
		args[k] = eval(e, g->kids[n->first + k]);
		if (args[k].t == T_ERROR)
			return args[k];
	}
	/* the global forms take their subject as the first argument */
	if (n->a < 0 && (fn == F_SIZE || fn == F_MATCHES)) {
		recv = args[0];
		args[0] = args[1];
	}
	switch (fn) {
	case F_SIZE:
		if (recv.t == T_STRING)
			return v_int(utf8_count(recv.s));
		if (recv.t == T_LIST)
			return v_int(recv.i);
		if (recv.t >= T_ATTR_DOMAINS)
			return v_int(map_size(e, &recv));
		break;
	case F_QUANTITY:
	case F_IS_QUANTITY: {
		struct value s = as_string_arg(e, args[0], name, n->col);
		if (s.t == T_ERROR)
			return s;
		int64_t milli;
		bool ok = parse_quantity_text(s.s, &milli);
		if (fn == F_IS_QUANTITY)
			return v_bool(ok);
		if (!ok)
			return error_at(e, n->col, "invalid quantity '%s'", s.s);
		return (struct value){ .t = T_QUANTITY, .i = milli };
	}
	case F_SEMVER:
	case F_IS_SEMVER: {
		struct value s = as_string_arg(e, args[0], name, n->col);
		if (s.t == T_ERROR)
			return s;
		struct value v = { .t = T_SEMVER };
		bool ok = parse_semver_text(s.s, s.len, &v.v);
		if (fn == F_IS_SEMVER)
			return v_bool(ok);
		if (!ok)
			return error_at(e, n->col, "invalid semver '%s'", s.s);
		return v;
	}
	case F_MATCHES:
	case F_STARTS_WITH:
	case F_ENDS_WITH:
	case F_CONTAINS: {
		if (recv.t != T_STRING || args[0].t != T_STRING)
			break;
		const char *s = recv.s, *x = args[0].s;
		size_t sl = recv.len, xl = args[0].len;
		if (fn == F_STARTS_WITH)
			return v_bool(xl <= sl && !memcmp(s, x, xl));
		if (fn == F_ENDS_WITH)
			return v_bool(xl <= sl && !memcmp(s + sl - xl, x, xl));
		if (fn == F_CONTAINS)
			return v_bool(strstr(s, x) != NULL);
		if (n->regex >= 0)
			return v_bool(regexec(&g->regexes[n->regex], s, 0, NULL, 0) == 0);
		const char *refused = regex_refused(x);
		if (refused)
			return error_at(e, n->col, "invalid regular expression '%s': %s", x, refused);
		regex_t re;
		int rc = regcomp(&re, x, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[96];
			regerror(rc, &re, msg, sizeof(msg));
			regfree(&re);
			return error_at(e, n->col, "invalid regular expression '%s': %s", x, msg);
		}
		bool m = regexec(&re, s, 0, NULL, 0) == 0;
		regfree(&re);
		return v_bool(m);
	}
	case F_COMPARE_TO:
	case F_IS_GREATER_THAN:
	case F_IS_LESS_THAN: {
		if ((recv.t != T_QUANTITY && recv.t != T_SEMVER) || args[0].t != recv.t)
			break;
		int c = compare(&recv, &args[0]);
		if (fn == F_COMPARE_TO)
			return v_int(c);
		return v_bool(fn == F_IS_GREATER_THAN ? c > 0 : c < 0);
	}
	case F_AS_INTEGER:
	case F_AS_APPROXIMATE_FLOAT:
	case F_IS_INTEGER:
	case F_SIGN:
		if (recv.t != T_QUANTITY)
			break;
		if (fn == F_AS_INTEGER) {
			if (recv.i % 1000)
				return error_at(e, n->col, "asInteger(): the quantity is not a whole number");
			return v_int(recv.i / 1000);
		}
		if (fn == F_AS_APPROXIMATE_FLOAT)
			return (struct value){ .t = T_DOUBLE, .d = (double)recv.i / 1000.0 };
		if (fn == F_IS_INTEGER)
			return v_bool(recv.i % 1000 == 0);
		return v_int(cmp_int(recv.i, 0));
	case F_ADD:
	case F_SUB: {
		if (recv.t != T_QUANTITY || (args[0].t != T_QUANTITY && args[0].t != T_INT))
			break;
		int64_t other = args[0].i, r;
		if (args[0].t == T_INT && __builtin_mul_overflow(other, 1000, &other))
			return error_at(e, n->col, "quantity overflow in %s()", name);
		if (fn == F_ADD ? __builtin_add_overflow(recv.i, other, &r) :
				  __builtin_sub_overflow(recv.i, other, &r))
			return error_at(e, n->col, "quantity overflow in %s()", name);
		return (struct value){ .t = T_QUANTITY, .i = r };
	}
	case F_LOWER_ASCII:
	case F_UPPER_ASCII: {
		if (recv.t != T_STRING)
			break;
		char *out = gt_xstrndup(recv.s, recv.len);
		for (char *c = out; *c; c++)
			if (fn == F_LOWER_ASCII && *c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
			else if (fn == F_UPPER_ASCII && *c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
		keep(e, out);
		return (struct value){ .t = T_STRING, .s = out, .len = recv.len };
	}
	case F_MAJOR:
	case F_MINOR:
	case F_PATCH:
		if (recv.t != T_SEMVER)
			break;
		return v_int(fn == F_MAJOR ? recv.v.major : fn == F_MINOR ? recv.v.minor : recv.v.patch);
	}
	if (n->a >= 0 || fn == F_SIZE || fn == F_MATCHES)
		return error_at(e, n->col, "no matching overload for '%s' on %s%s%s", name, vtype(&recv),
				n->n ? " with " : "", n->n ? vtype(&args[0]) : "");
	return error_at(e, n->col, "no matching overload for '%s' applied to %s", name, vtype(&args[0]));
}

static struct value eval(struct eval *e, int node)
{
	const struct gt_cel_program *g = e->prog;
	const struct node *n = &g->nodes[node];
	switch (n->kind) {
	case N_LITERAL:
		return n->lit;
	case N_DEVICE:
		return (struct value){ .t = T_DEVICE };
	case N_VAR:
		return e->slots[n->op];
	case N_BIND: {
		struct value v = eval(e, n->a);
		/* an error in the value is an error only where the variable is used */
		e->slots[n->op] = v;
		return eval(e, n->b);
	}
	case N_SELECT: {
		struct value a = eval(e, n->a);
		if (a.t == T_ERROR)
			return a;
		if (a.t == T_DEVICE) {
			const char *f = n->lit.s;
			if (!strcmp(f, "driver"))
				return v_string(e->dev->driver ? e->dev->driver : "");
			if (!strcmp(f, "attributes"))
				return (struct value){ .t = T_ATTR_DOMAINS };
			if (!strcmp(f, "capacity"))
				return (struct value){ .t = T_CAP_DOMAINS };
			return v_bool(e->dev->allow_multiple_allocations);
		}
		return map_get(e, &a, n->lit.s, n->col);
	}
	case N_INDEX: {
		struct value a = eval(e, n->a);
		if (a.t == T_ERROR)
			return a;
		struct value k = eval(e, n->b);
		if (k.t == T_ERROR)
			return k;
		if (a.t == T_LIST) {
			if (k.t != T_INT)
				return error_at(e, n->col, "a list index must be an int, not %s", vtype(&k));
			if (k.i < 0 || k.i >= a.i)
				return error_at(e, n->col, "index %lld out of range (list of %lld)",
						(long long)k.i, (long long)a.i);
			return a.items[k.i];
		}
		if (k.t != T_STRING || a.t < T_ATTR_DOMAINS)
			return error_at(e, n->col, "no matching overload for '[]' applied to (%s, %s)",
					vtype(&a), vtype(&k));
		return map_get(e, &a, k.s, n->col);
	}
	case N_NOT: {
		struct value a = eval(e, n->a);
		if (a.t == T_ERROR)
			return a;
		if (a.t != T_BOOL)
			return error_at(e, n->col, "no matching overload for '!' applied to %s", vtype(&a));
		return v_bool(!a.b);
	}
	case N_NEG: {
		struct value a = eval(e, n->a);
		if (a.t == T_ERROR)
			return a;
		if (a.t == T_INT) {
			if (a.i == INT64_MIN)
				return error_at(e, n->col, "integer overflow in '-'");
			return v_int(-a.i);
		}
		if (a.t == T_DOUBLE)
			return (struct value){ .t = T_DOUBLE, .d = -a.d };
		return error_at(e, n->col, "no matching overload for '-' applied to %s", vtype(&a));
	}
	case N_BINARY:
		return eval_binary(e, n);
	case N_AND:
		return eval_logical(e, n, true);
	case N_OR:
		return eval_logical(e, n, false);
	case N_COND: {
		struct value c = eval(e, n->a);
		if (c.t == T_ERROR)
			return c;
		if (c.t != T_BOOL)
			return error_at(e, n->col, "the condition of '?:' is %s, not bool", vtype(&c));
		return eval(e, c.b ? n->b : n->c);
	}
	case N_LIST: {
		if (n->items)
			return (struct value){ .t = T_LIST, .items = n->items, .i = n->n };
		/* every element, once (an error in one is the list's, as CEL builds it) */
		struct value *items = NULL;
		if (n->n) {
			items = gt_xcalloc((size_t)n->n, sizeof(*items));
			keep(e, items);
		}
		for (int k = 0; k < n->n; k++) {
			items[k] = eval(e, g->kids[n->first + k]);
			if (items[k].t == T_ERROR)
				return items[k];
		}
		return (struct value){ .t = T_LIST, .items = items, .i = n->n };
	}
	case N_CALL:
		return eval_call(e, n);
	case N_HAS: {
		const struct node *sel = &g->nodes[n->a];
		struct value a = eval(e, sel->a);
		if (a.t == T_ERROR)
			return a;
		if (a.t == T_DEVICE)
			return v_bool(true);	/* the compiler knows its fields */
		if (a.t < T_ATTR_DOMAINS)
			return error_at(e, sel->col, "has() on %s: it takes a map or the device", vtype(&a));
		return v_bool(map_has(e, &a, sel->lit.s));
	}
	}
	return error_at(e, n->col, "internal error: unknown node");
}

gt_cel_result gt_cel_eval(const gt_cel_program *program, const gt_cel_device *device,
			  char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!program || !device) {
		if (err && errlen)
			snprintf(err, errlen, "no %s to evaluate", program ? "device" : "program");
		return GT_CEL_ERROR;
	}
	/* not zeroed: the messages and the variables are written before they are read */
	struct eval e;
	e.prog = program;
	e.dev = device;
	e.n_msgs = 0;
	e.owned = NULL;
	e.n_owned = e.cap_owned = 0;
	struct value v = eval(&e, program->root);
	for (size_t i = 0; i < e.n_owned; i++)
		free(e.owned[i]);
	free(e.owned);
	if (v.t == T_BOOL)
		return v.b ? GT_CEL_TRUE : GT_CEL_FALSE;
	if (err && errlen) {
		if (v.t == T_ERROR)
			snprintf(err, errlen, "%s", e.msgs[v.i]);
		else
			snprintf(err, errlen, "column %d: the expression's value is %s, not bool",
				 program->nodes[program->root].col, vtype(&v));
	}
	return GT_CEL_ERROR;
}
