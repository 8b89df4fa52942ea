/*
 * test_fairshare_sim.c - `gantry fairshare`: KAI's fairshare-simulator
 * requests and its time-based simulator's example configurations, with
 * the answers worked out by hand.
 */
#include "fairshare/fairshare.h"
#include "harness.h"

const char *gt_suite = "fairshare_sim";

static char *answer(const char *req, struct gt_err *err)
{
	char *out = NULL;
	if (gt_fairshare_answer(req, strlen(req), &out, NULL, "", err))
		return NULL;
	return out;
}

/*
 * KAI's cmd/fairshare-simulator/README.md example. GPU: deserved 10 each,
 * 80 left, over-quota weights 3:1 -> 60 and 20: 70 and 30. CPU and memory
 * have no section: deserved unlimited, request 100000 (KAI's defaults), so
 * each queue deserves min(total, 100000): CPU 16000 each, memory 100000
 * each. The README's answer, as KAI's service prints it (keys sorted).
 */
TEST(kai_readme_example)
{
	const char *req =
		"{\"totalResource\": {\"GPU\": 100, \"CPU\": 16000, \"Memory\": 32000000},"
		" \"queues\": ["
		"  {\"uid\": \"queue1\", \"name\": \"test-queue\", \"priority\": 0,"
		"   \"resourceShare\": {\"gpu\": {\"deserved\": 10, \"request\": 100, \"overQuotaWeight\": 3}}},"
		"  {\"uid\": \"queue2\", \"name\": \"test-queue2\", \"priority\": 0,"
		"   \"resourceShare\": {\"gpu\": {\"deserved\": 10, \"request\": 100, \"overQuotaWeight\": 1}}}]}";
	struct gt_err err = { 0 };
	char *out = answer(req, &err);
	ASSERT_STR("{\"queue1\":{\"gpu\":70,\"cpu\":16000,\"memory\":100000},"
		   "\"queue2\":{\"gpu\":30,\"cpu\":16000,\"memory\":100000}}\n", out);
	free(out);
}

/*
 * Priority and maxAllowed. 10 GPUs. "hi" (priority 1, no quota, asks 6),
 * "lo" (priority 0, deserved 2, asks 10, maxAllowed 5). Deserved phase: lo
 * 2; 8 left. Priority 1 first: hi's portion 8 covers its 6. Then lo: it may
 * hold at most 5, has 2, 2 GPUs are left: lo = 4. Fractions print as Go
 * does: 0.5 GPU of deserved to "frac" with nothing else asked.
 */
TEST(priority_and_limit)
{
	const char *req =
		"{\"totalResource\": {\"GPU\": 10},"
		" \"queues\": ["
		"  {\"uid\": \"lo\", \"resourceShare\": {\"gpu\": {\"deserved\": 2, \"request\": 10, \"maxAllowed\": 5}}},"
		"  {\"uid\": \"hi\", \"priority\": 1, \"resourceShare\": {\"gpu\": {\"request\": 6}}}]}";
	struct gt_err err = { 0 };
	char *out = answer(req, &err);
	ASSERT_STR("{\"hi\":{\"gpu\":6,\"cpu\":0,\"memory\":0},\"lo\":{\"gpu\":4,\"cpu\":0,\"memory\":0}}\n", out);
	free(out);
	out = answer("{\"totalResource\": {\"GPU\": 1}, \"queues\": [{\"uid\": \"frac\", \"resourceShare\":"
		     " {\"gpu\": {\"deserved\": 0.5, \"request\": 0.5, \"overQuotaWeight\": 0}}}]}", &err);
	ASSERT_STR("{\"frac\":{\"gpu\":0.5,\"cpu\":0,\"memory\":0}}\n", out);
	free(out);
}

/*
 * Gantry's extension for trying time-based fair share: kValue 1 and a
 * usage of 0.75 on queue a (16 GPUs, a and b asking 16 each): weights
 * 0.25 and 1 -> 3.2 and 12.8 -> 3 and 12, the last GPU to b: 3 and 13.
 */
TEST(usage_extension)
{
	const char *req =
		"{\"totalResource\": {\"GPU\": 16}, \"kValue\": 1, \"queues\": ["
		"  {\"uid\": \"a\", \"resourceShare\": {\"gpu\": {\"request\": 16, \"usage\": 0.75}}},"
		"  {\"uid\": \"b\", \"resourceShare\": {\"gpu\": {\"request\": 16}}}]}";
	struct gt_err err = { 0 };
	char *out = answer(req, &err);
	ASSERT_STR("{\"a\":{\"gpu\":3,\"cpu\":0,\"memory\":0},\"b\":{\"gpu\":13,\"cpu\":0,\"memory\":0}}\n", out);
	free(out);
}

TEST(bad_requests_name_the_field)
{
	struct gt_err err = { 0 };
	ASSERT_TRUE(!answer("{\"queues\": [{\"name\": \"x\"}]}", &err));
	ASSERT_CONTAINS(err.msg, "queues[0].uid");
	ASSERT_TRUE(!answer("{\"queues\": [{\"uid\": \"x\", \"resourceShare\": {\"gpu\": {\"request\": \"ten\"}}}]}",
			    &err));
	ASSERT_CONTAINS(err.msg, "queues[0].resourceShare.gpu.request");
	ASSERT_TRUE(!answer("{\"totalResource\": [1]}", &err));
	ASSERT_CONTAINS(err.msg, "totalResource");
	ASSERT_TRUE(!answer("{\"queues\": [", &err));
	ASSERT_CONTAINS(err.msg, "not JSON");
	ASSERT_TRUE(!answer("{\"queues\": [{\"uid\": \"x\"}, {\"uid\": \"x\"}]}", &err));
	ASSERT_CONTAINS(err.msg, "twice");
}

TEST(go_floats)
{
	char b[64];
	gt_go_float(70, b, sizeof(b));
	ASSERT_STR("70", b);
	gt_go_float(0.1, b, sizeof(b));
	ASSERT_STR("0.1", b);
	gt_go_float(123456789, b, sizeof(b));
	ASSERT_STR("123456789", b);
	gt_go_float(1e21, b, sizeof(b));
	ASSERT_STR("1e+21", b);
	gt_go_float(1e-7, b, sizeof(b));
	ASSERT_STR("1e-07", b);
	gt_go_float(34359738368, b, sizeof(b));
	ASSERT_STR("34359738368", b);
}

static char *over_time(const char *cfg, struct gt_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = gt_fairshare_over_time(cfg, strlen(cfg), "cfg.yaml", f, NULL, err);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * KAI's examples/example_config.yaml: one 8-GPU node, department
 * "default" with team-a and team-b (weight 1 each), 50 jobs of one 4-GPU
 * pod each per team. Cycle 0: nothing runs, the department's fair share is
 * 8 and each team's 4; the cycle binds one job of each team. From cycle 1
 * on both teams run 4 of 4: equal usage, equal weights, the shares stay
 * 4 and 4 and nothing is reclaimed.
 */
TEST(kai_example_config)
{
	const char *cfg =
		"Cycles: 100\nWindowSize: 10\nHalfLifePeriod: 5\nKValue: 1.0\n"
		"Nodes:\n  - GPUs: 8\n    Count: 1\n"
		"Queues:\n"
		"  - {Name: default, Parent: \"\", Priority: 100, DeservedGPUs: 0.0, Weight: 1.0}\n"
		"  - {Name: team-a, Parent: default, Priority: 100, DeservedGPUs: 0.0, Weight: 1.0}\n"
		"  - {Name: team-b, Parent: default, Priority: 100, DeservedGPUs: 0.0, Weight: 1.0}\n"
		"Jobs:\n  team-a: {GPUs: 4, NumPods: 1, NumJobs: 50}\n  team-b: {GPUs: 4, NumPods: 1, NumJobs: 50}\n";
	struct gt_err err = { 0 };
	char *csv = over_time(cfg, &err);
	ASSERT_TRUE(csv != NULL);
	const char *head = "Time,QueueID,Allocation,FairShare\n"
			   "0,default,0.000000,8.000000\n0,team-a,0.000000,4.000000\n0,team-b,0.000000,4.000000\n"
			   "1,default,8.000000,8.000000\n1,team-a,4.000000,4.000000\n1,team-b,4.000000,4.000000\n";
	ASSERT_TRUE(!strncmp(csv, head, strlen(head)));
	int rows = 0, steady = 0;
	for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
		rows++;
		steady += strstr(line, ",team-a,4.000000,4.000000") || strstr(line, ",team-b,4.000000,4.000000");
	}
	ASSERT_EQ(1 + 100 * 3, rows);
	ASSERT_EQ(99 * 2, steady);
	free(csv);
}

/*
 * examples/time-based-fairshare/two-queue-oscillation: 16 GPUs, two teams
 * that each want the whole cluster. Whoever runs accumulates usage; once
 * its weight 1 - usage is small enough that the other team's share reaches
 * 16, the other team reclaims. So the cluster changes hands again and
 * again, and after the first hand-overs at an even pace; never do both
 * teams hold GPUs at once.
 */
TEST(two_queue_oscillation)
{
	const char *cfg =
		"Cycles: 1024\nWindowSize: 256\nHalfLifePeriod: 128\nKValue: 1.0\n"
		"Nodes: [{GPUs: 16, Count: 1}]\n"
		"Queues:\n  - {Name: dept, Parent: \"\"}\n  - {Name: team-a, Parent: dept}\n"
		"  - {Name: team-b, Parent: dept}\n"
		"Jobs:\n  team-a: {GPUs: 16, NumPods: 1, NumJobs: 100}\n  team-b: {GPUs: 16, NumPods: 1, NumJobs: 100}\n";
	struct gt_err err = { 0 };
	char *csv = over_time(cfg, &err);
	ASSERT_TRUE(csv != NULL);
	double a[1024] = { 0 }, b[1024] = { 0 };
	for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
		int t;
		char q[32];
		double alloc, fs;
		if (sscanf(line, "%d,%31[^,],%lf,%lf", &t, q, &alloc, &fs) == 4 && t >= 0 && t < 1024)
			(!strcmp(q, "team-a") ? a : !strcmp(q, "team-b") ? b : (double[1024]){ 0 })[t] = alloc;
	}
	free(csv);
	int hand_overs[16], n = 0;
	for (int t = 1; t < 1024; t++) {
		ASSERT_TRUE(!(a[t] > 0 && b[t] > 0));
		if (a[t] != a[t - 1] && a[t] > 0 && n < 16)
			hand_overs[n++] = t;
	}
	ASSERT_TRUE(n >= 3);
	/* after the start-up, team-a gets the cluster back every same number of cycles, +-2 */
	for (int i = 2; i + 1 < n; i++)
		ASSERT_TRUE(abs((hand_overs[i + 1] - hand_overs[i]) - (hand_overs[i] - hand_overs[i - 1])) <= 2);
}

TEST(bad_config_names_the_key)
{
	struct gt_err err = { 0 };
	ASSERT_TRUE(!over_time("Cycles: many\nNodes: [{GPUs: 8}]\nQueues: [{Name: a}]\n", &err));
	ASSERT_CONTAINS(err.msg, "Cycles");
	ASSERT_TRUE(!over_time("Nodes: [{GPUs: 8}]\nQueues: [{Parent: x}]\n", &err));
	ASSERT_CONTAINS(err.msg, "Queues[0].Name");
	ASSERT_TRUE(!over_time("Queues: [{Name: a}]\n", &err));
	ASSERT_CONTAINS(err.msg, "Nodes");
}

const struct gt_test gt_tests[] = {
	T(kai_readme_example),
	T(priority_and_limit),
	T(usage_extension),
	T(bad_requests_name_the_field),
	T(go_floats),
	T(kai_example_config),
	T(two_queue_oscillation),
	T(bad_config_names_the_key),
	{ NULL, NULL },
};
