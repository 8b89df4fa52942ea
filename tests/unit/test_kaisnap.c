/*
 * test_kaisnap.c - KAI's scheduler snapshots read and written (snapshot/)
 */
#include "api/decode.h"
#include "core/actions.h"
#include "harness.h"
#include "snapshot/kaisnap.h"
#include "snapshot/zipio.h"

const char *gt_suite = "kaisnap";

/*
 * A snapshot as KAI v0.17 writes it: no kind in list items, null lists,
 * nanosecond durations, Go-named partitionParams, a comma-separated
 * actions string, tiers[].plugins, "5m0s" budgets; a pod being bound
 * through a BindRequest; a pending pod without a PodGroup; a node of
 * another partition.
 */
static const char *snapshot_text =
	"{\"config\": {\"actions\": \"allocate, reclaim\","
	"  \"tiers\": [{\"plugins\": [{\"name\": \"predicates\"}, {\"name\": \"proportion\", \"arguments\": {\"kValue\": \"2\"}},"
	"    {\"name\": \"priority\"}, {\"name\": \"elastic\"}, {\"name\": \"kubeflow\"}, {\"name\": \"ray\"},"
	"    {\"name\": \"gpuspread\"}, {\"name\": \"subgrouporder\"}, {\"name\": \"taskorder\"},"
	"    {\"name\": \"nodeplacement\", \"arguments\": {\"gpu\": \"spread\", \"cpu\": \"binpack\", \"future\": \"x\"}},"
	"    {\"name\": \"minruntime\"}, {\"name\": \"topology\"}, {\"name\": \"snapshot\"}, {\"name\": \"mystery\"}]}],"
	"  \"scenarioSearchBudgets\": {\"maxActionSearchDuration\": {\"default\": \"5m0s\"}}},"
	" \"schedulerParams\": {\"schedulerName\": \"my-sched\", \"maxNumberConsolidationPreemptees\": 4,"
	"  \"globalDefaultStalenessGracePeriod\": 90000000000, \"schedulePeriod\": 1000000000,"
	"  \"stuckInReleasingThreshold\": 150000000000,"
	"  \"partitionParams\": {\"NodePoolLabelKey\": \"pool\", \"NodePoolLabelValue\": \"a\"}},"
	" \"rawObjects\": {"
	"  \"nodes\": [{\"metadata\": {\"name\": \"n1\", \"labels\": {\"pool\": \"a\"}},"
	"              \"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"8\", \"cpu\": \"32\", \"memory\": \"64Gi\"}}},"
	"             {\"metadata\": {\"name\": \"n2\", \"labels\": {\"pool\": \"b\"}},"
	"              \"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"8\", \"cpu\": \"32\", \"memory\": \"64Gi\"}}}],"
	"  \"queues\": [{\"metadata\": {\"name\": \"q\", \"labels\": {\"pool\": \"a\"}}, \"spec\": {}}],"
	"  \"podGroups\": [{\"metadata\": {\"name\": \"pg\", \"namespace\": \"ns\", \"labels\": {\"pool\": \"a\"}},"
	"                   \"spec\": {\"minMember\": 1, \"queue\": \"q\"}}],"
	"  \"pods\": ["
	"   {\"metadata\": {\"name\": \"p1\", \"namespace\": \"ns\", \"uid\": \"u1\", \"annotations\": {\"pod-group-name\": \"pg\"}},"
	"    \"spec\": {\"schedulerName\": \"my-sched\", \"containers\": [{\"name\": \"c\","
	"      \"resources\": {\"limits\": {\"nvidia.com/gpu\": \"2\"}}}]}, \"status\": {\"phase\": \"Pending\"}},"
	"   {\"metadata\": {\"name\": \"bare\", \"namespace\": \"ns\"},"
	"    \"spec\": {\"schedulerName\": \"my-sched\", \"containers\": [{\"name\": \"c\"}]}, \"status\": {\"phase\": \"Pending\"}}],"
	"  \"bindRequests\": [{\"metadata\": {\"name\": \"p1-br\", \"namespace\": \"ns\"},"
	"    \"spec\": {\"podName\": \"p1\", \"selectedNode\": \"n1\"}, \"status\": {\"phase\": \"Pending\"}}],"
	"  \"priorityClasses\": null, \"configMaps\": null, \"persistentVolumes\": null,"
	"  \"persistentVolumeClaims\": [{\"metadata\": {\"name\": \"claim\", \"namespace\": \"ns\"}}],"
	"  \"csiStorageCapacities\": null, \"storageClasses\": null, \"csiDrivers\": null, \"resourceClaims\": null,"
	"  \"resourceSlices\": null, \"deviceClasses\": null, \"topologies\": null, \"nodeResourceTopologies\": null},"
	" \"discovery\": {\"serverVersion\": {\"gitVersion\": \"v1.33.4\"}, \"resources\": null}}";

static bool warned(const struct gt_kai_snapshot *s, const char *what)
{
	for (size_t i = 0; i < s->n_warnings; i++)
		if (strstr(s->warnings[i], what))
			return true;
	return false;
}

static const struct gt_doc *find(const struct gt_kai_snapshot *s, const char *kind, const char *name)
{
	for (size_t i = 0; i < s->docs.n; i++) {
		const struct gt_doc *d = s->docs.docs[i];
		if (!strcmp(gt_doc_str(d, "kind"), kind) && !strcmp(gt_doc_str(gt_doc_get(d, "metadata"), "name"), name))
			return d;
	}
	return NULL;
}

TEST(reads_kai_layout)
{
	struct gt_kai_snapshot s;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_kai_snapshot_read(snapshot_text, strlen(snapshot_text), "s.json", &s, &err));
	ASSERT_EQ((1u << GT_ACT_ALLOCATE) | (1u << GT_ACT_RECLAIM), s.actions);
	ASSERT_STR("my-sched", s.scheduler_name);
	ASSERT_STR("v1.33.4", s.server_version);
	/* every list item got its kind; the other partition's node and the ungrouped pod are left out */
	ASSERT_TRUE(find(&s, "Node", "n1") && !find(&s, "Node", "n2"));
	ASSERT_STR("scheduling.run.ai/v2alpha2", gt_doc_str(find(&s, "PodGroup", "pg"), "apiVersion"));
	ASSERT_TRUE(find(&s, "Pod", "p1") && !find(&s, "Pod", "bare"));
	ASSERT_TRUE(warned(&s, "1 pending pods name no PodGroup"));
	/* the live BindRequest: p1 is being bound to n1 */
	ASSERT_EQ(1, s.n_bindings);
	ASSERT_STR("n1", s.bindings[0].node);
	/* the configuration as a shard: plugin switches and arguments, scheduler parameters */
	const struct gt_doc *shard = find(&s, "SchedulingShard", "snapshot");
	ASSERT_TRUE(shard != NULL);
	ASSERT_STR("2", gt_doc_str(gt_doc_path(shard, "spec.plugins.proportion.arguments"), "kValue"));
	ASSERT_STR("spread", gt_doc_str(gt_doc_path(shard, "spec.plugins.nodeplacement.arguments"), "gpu"));
	ASSERT_STR("false", gt_doc_str(gt_doc_path(shard, "spec.plugins.nodeavailability"), "enabled"));
	ASSERT_STR("4", gt_doc_str(gt_doc_path(shard, "spec.args"), "max-consolidation-preemptees"));
	/* nanoseconds as Go writes a duration, which the shard's args take */
	ASSERT_STR("1m30s", gt_doc_str(gt_doc_path(shard, "spec.args"), "default-staleness-grace-period"));
	ASSERT_STR("2m30s", gt_doc_str(gt_doc_path(shard, "spec.args"), "stuck-in-releasing-threshold"));
	/* what Gantry does not act on is said, each by name */
	ASSERT_TRUE(warned(&s, "plugin mystery is not one Gantry knows"));
	ASSERT_TRUE(warned(&s, "plugin nodeplacement: argument future"));
	ASSERT_TRUE(warned(&s, "plugin nodeavailability is not in the configuration") == false);
	/* the storage lists are read (volume binding); a list given marks the kind as listed */
	ASSERT_TRUE(find(&s, "PersistentVolumeClaim", "claim") != NULL);
	ASSERT_TRUE(!warned(&s, "rawObjects.persistentVolumeClaims"));
	ASSERT_TRUE(s.claims_listed && !s.storage_listed);
	/* the budgets go to the shard, whose decoder judges them (KAI's and the shard's are one type) */
	ASSERT_TRUE(!warned(&s, "scenarioSearchBudgets"));
	ASSERT_STR("5m0s", gt_doc_str(gt_doc_path(shard, "spec.scenarioSearchBudgets.maxActionSearchDuration"),
				      "default"));
	ASSERT_TRUE(!s.allow_consolidating_reclaim);	/* left out by Go's omitempty: false */
	/* and it decodes: p1 Binding on n1, the shard's spread and kValue in force */
	struct gt_strtab names;
	struct gt_cluster c;
	gt_strtab_init(&names);
	gt_cluster_init(&c, &names);
	struct gt_decoder d;
	gt_decoder_init(&d);
	d.scheduler_name = s.scheduler_name;
	for (size_t i = 0; i < s.docs.n; i++)
		gt_decoder_add(&d, s.docs.docs[i]);
	for (size_t i = 0; i < s.n_bindings; i++)
		gt_decoder_bind(&d, &s.bindings[i]);
	ASSERT_EQ(0, gt_decoder_build(&d, &c, &err));
	ASSERT_EQ(1, c.n_pods);
	ASSERT_EQ(GT_BINDING, c.pods[0].status);
	ASSERT_TRUE(c.config.gpu_spread);
	ASSERT_TRUE(c.config.k_value == 2);
	ASSERT_EQ(90, c.config.staleness_grace_s);
	ASSERT_EQ(150, c.config.stuck_releasing_s);
	gt_decoder_release(&d);
	gt_cluster_release(&c);
	gt_strtab_release(&names);
	gt_kai_snapshot_release(&s);
}

static int read_err(const char *data, size_t len, struct gt_err *err)
{
	struct gt_kai_snapshot s;
	int rc = gt_kai_snapshot_read(data, len, "bad.zip", &s, err);
	if (!rc)
		gt_kai_snapshot_release(&s);
	return rc;
}

TEST(bad_snapshots_name_the_part)
{
	struct gt_err err = { 0 };
	ASSERT_TRUE(read_err("hello", 5, &err) != 0);
	ASSERT_CONTAINS(err.msg, "neither a ZIP archive");
	char *zip;
	size_t zlen;
	ASSERT_EQ(0, gt_zip_write("other.json", "{}", 2, &zip, &zlen, &err));
	ASSERT_TRUE(read_err(zip, zlen, &err) != 0);
	ASSERT_CONTAINS(err.msg, "no snapshot.json");
	free(zip);
	ASSERT_EQ(0, gt_zip_write("snapshot.json", snapshot_text, strlen(snapshot_text), &zip, &zlen, &err));
	ASSERT_TRUE(read_err(zip, zlen / 2, &err) != 0);	/* a download cut in half */
	ASSERT_CONTAINS(err.msg, "truncated");
	ASSERT_EQ(0, read_err(zip, zlen, &err));
	free(zip);
	ASSERT_TRUE(read_err(snapshot_text, strlen(snapshot_text) - 40, &err) != 0);
	ASSERT_CONTAINS(err.msg, "truncated");
	const char *wrong = "{\"rawObjects\": {\"nodes\": [{\"metadata\": {\"name\": \"p\"},"
			    " \"spec\": {\"containers\": []}}]}}";
	ASSERT_TRUE(read_err(wrong, strlen(wrong), &err) != 0);
	ASSERT_CONTAINS(err.msg, "rawObjects.nodes[0]: a Pod");
	const char *kinded = "{\"rawObjects\": {\"queues\": [{\"kind\": \"Node\", \"metadata\": {\"name\": \"x\"}}]}}";
	ASSERT_TRUE(read_err(kinded, strlen(kinded), &err) != 0);
	ASSERT_CONTAINS(err.msg, "rawObjects.queues[0]: a Node in the list of Queue objects");
	const char *notlist = "{\"rawObjects\": {\"pods\": {}}}";
	ASSERT_TRUE(read_err(notlist, strlen(notlist), &err) != 0);
	ASSERT_CONTAINS(err.msg, "rawObjects.pods: must be a list");
	const char *noraw = "{\"config\": null}";
	ASSERT_TRUE(read_err(noraw, strlen(noraw), &err) != 0);
	ASSERT_CONTAINS(err.msg, "rawObjects: missing");
}

/* What Gantry writes reads back: the objects, the actions, the configuration. */
TEST(write_then_read)
{
	struct gt_kai_snapshot s;
	struct gt_err err = { 0 };
	ASSERT_EQ(0, gt_kai_snapshot_read(snapshot_text, strlen(snapshot_text), "s.json", &s, &err));
	const struct gt_doc *lists[GT_KAISNAP_N_LISTS][4] = { { 0 } };
	size_t n[GT_KAISNAP_N_LISTS] = { 0 };
	static const char *const kinds[] = { "Pod", "Node", "Queue", "PodGroup" };
	static const int which[] = { GT_KAISNAP_PODS, GT_KAISNAP_NODES, GT_KAISNAP_QUEUES, GT_KAISNAP_PODGROUPS };
	for (size_t i = 0; i < s.docs.n; i++)
		for (int k = 0; k < 4; k++)
			if (!strcmp(gt_doc_str(s.docs.docs[i], "kind"), kinds[k]))
				lists[which[k]][n[which[k]]++] = s.docs.docs[i];
	const struct gt_doc *const *ptrs[GT_KAISNAP_N_LISTS];
	for (int l = 0; l < GT_KAISNAP_N_LISTS; l++)
		ptrs[l] = lists[l];
	struct gt_config cfg;
	gt_config_defaults(&cfg);
	cfg.gpu_spread = true;
	cfg.k_value = 0.5;
	struct gt_kaisnap_meta m = { .actions = (1u << GT_ACT_ALLOCATE) | (1u << GT_ACT_PREEMPT), .config = &cfg,
				     .scheduler_name = "my-sched", .pool_value = "a", .pool_key = "pool" };
	char *json, *zip;
	size_t len, zlen;
	gt_kai_snapshot_write(&m, ptrs, n, &json, &len);
	ASSERT_CONTAINS(json, "\"actions\":\"allocate, preempt\"");
	ASSERT_CONTAINS(json, "\"configMaps\":null");
	ASSERT_CONTAINS(json, "\"NodePoolLabelValue\":\"a\"");
	ASSERT_CONTAINS(json, "\"globalDefaultStalenessGracePeriod\":60000000000");
	ASSERT_CONTAINS(json, "\"stuckInReleasingThreshold\":120000000000");
	ASSERT_CONTAINS(json, "\"queueLabelKey\":\"kai.scheduler/queue\"");
	ASSERT_TRUE(!strstr(json, "\"kind\""));
	/* no server version known: no discovery (KAI's snapshot-tool works it out from the objects) */
	ASSERT_TRUE(!strstr(json, "\"discovery\""));
	ASSERT_EQ(0, gt_zip_write(GT_KAISNAP_MEMBER, json, len, &zip, &zlen, &err));
	struct gt_kai_snapshot back;
	ASSERT_EQ(0, gt_kai_snapshot_read(zip, zlen, "back.zip", &back, &err));
	ASSERT_EQ(m.actions, back.actions);
	ASSERT_TRUE(find(&back, "Pod", "p1") && find(&back, "Node", "n1") && find(&back, "Queue", "q"));
	const struct gt_doc *shard = find(&back, "SchedulingShard", "snapshot");
	ASSERT_TRUE(shard && gt_doc_path(shard, "spec.plugins.gpuspread"));
	ASSERT_STR("0.5", gt_doc_str(gt_doc_path(shard, "spec.plugins.proportion.arguments"), "kValue"));
	ASSERT_TRUE(!warned(&back, "not one Gantry knows"));
	free(json);
	free(zip);
	gt_kai_snapshot_release(&back);
	gt_kai_snapshot_release(&s);
}

/*
 * With the server's version, discovery says it as KAI's readers take it
 * (major and minor) and lists resource.k8s.io/v1 exactly when the snapshot
 * carries DRA objects: KAI's snapshot-tool reads claims only then.
 */
TEST(discovery_names_the_groups_carried)
{
	struct gt_config cfg;
	gt_config_defaults(&cfg);
	struct gt_kaisnap_meta m = { .actions = 1u << GT_ACT_ALLOCATE, .config = &cfg, .scheduler_name = "kai-scheduler",
				     .server_version = "v1.37.2" };
	const struct gt_doc *none[GT_KAISNAP_N_LISTS][1] = { { 0 } };
	const struct gt_doc *const *ptrs[GT_KAISNAP_N_LISTS];
	for (int l = 0; l < GT_KAISNAP_N_LISTS; l++)
		ptrs[l] = none[l];
	size_t n[GT_KAISNAP_N_LISTS] = { 0 };
	char *json;
	size_t len;
	gt_kai_snapshot_write(&m, ptrs, n, &json, &len);
	ASSERT_CONTAINS(json, "\"discovery\":{\"serverVersion\":{\"major\":\"1\",\"minor\":\"37\","
			      "\"gitVersion\":\"v1.37.2\"},\"resources\":[]}");
	free(json);
	struct gt_err err = { 0 };
	struct gt_doc_list cls = { 0 };
	const char *text = "{\"metadata\":{\"name\":\"gpu.nvidia.com\"}}";
	ASSERT_EQ(0, gt_doc_parse_string(text, strlen(text), "c.json", &cls, &err));
	none[GT_KAISNAP_DEVICECLASSES][0] = cls.docs[0];
	n[GT_KAISNAP_DEVICECLASSES] = 1;
	gt_kai_snapshot_write(&m, ptrs, n, &json, &len);
	ASSERT_CONTAINS(json, "\"resources\":[{\"groupVersion\":\"resource.k8s.io/v1\"");
	ASSERT_TRUE(!strstr(json, "topology.node.k8s.io"));
	free(json);
	gt_doc_list_release(&cls);
}

const struct gt_test gt_tests[] = {
	T(reads_kai_layout),
	T(bad_snapshots_name_the_part),
	T(write_then_read),
	T(discovery_names_the_groups_carried),
	{ NULL, NULL },
};
