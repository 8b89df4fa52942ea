/*
 * explain.h - `gantry explain`: why a pod, PodGroup or queue waits
 *
 * Reads the objects (files with -f, or a cluster: explain/source.h), runs
 * the scheduling core's cycle over them as the scheduler would, and says for
 * the one asked about: a reason code and KAI's message (explain/why.h), its
 * place in its queue, what would let it start, and when it is expected to
 * start (explain/forecast.h, over the running pods' expected ends:
 * explain/runtime.h). docs/explain.md is the user's guide and lists every
 * reason code; `-o json` is for scripts.
 */
#ifndef GT_EXPLAIN_H
#define GT_EXPLAIN_H

/* Run `gantry explain ARGS` (argv[0] is "explain"); the exit status: 0, 1 or 2. */
int gt_explain_main(int argc, char **argv);

#endif /* GT_EXPLAIN_H */
