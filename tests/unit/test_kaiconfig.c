/*
 * test_kaiconfig.c - scheduler/kaiconfig: the settings of KAI's kai-config
 * Config that Gantry takes, and a warning per leaf it does not act on
 */
#include <jansson.h>
#include <string.h>

#include "harness.h"
#include "scheduler/kaiconfig.h"

const char *gt_suite = "kaiconfig";

static bool warned(const struct gt_kai_config *c, const char *text)
{
	for (size_t i = 0; i < c->n_warnings; i++)
		if (strstr(c->warnings[i], text))
			return true;
	return false;
}

TEST(takes_what_applies_and_warns_about_the_rest)
{
	json_t *obj = json_loads(
		"{\"apiVersion\": \"kai.scheduler/v1\", \"kind\": \"Config\", \"metadata\": {\"name\": \"kai-config\"},"
		" \"spec\": {\"namespace\": \"kai-scheduler\","
		"  \"global\": {\"schedulerName\": \"s\", \"queueLabelKey\": \"team/queue\", \"nodePoolLabelKey\": \"pool\","
		"   \"namespaceLabelSelector\": {\"gpu\": \"yes\"}, \"podLabelSelector\": {}, \"replicaCount\": 2},"
		"  \"binder\": {\"resourceReservation\": {\"namespace\": \"resv\", \"serviceAccountName\": \"sa\","
		"   \"runtimeClassName\": \"\", \"allocationTimeout\": 25, \"appLabel\": \"x\"}, \"replicas\": 1},"
		"  \"queueController\": {\"queueLabelToMetricLabel\": \"team=queue_team\"}}}", 0, NULL);
	ASSERT_TRUE(obj != NULL);
	struct gt_kai_config c;
	gt_kai_config_read(obj, &c);
	json_decref(obj);
	ASSERT_STR("s", c.scheduler_name);
	ASSERT_STR("team/queue", c.queue_label_key);
	ASSERT_STR("pool", c.node_pool_label_key);
	ASSERT_STR("resv", c.resv_ns);
	ASSERT_STR("sa", c.resv_sa);
	ASSERT_STR("", c.resv_runtime_class);	/* none, said explicitly */
	ASSERT_EQ(25, c.resv_timeout_s);
	ASSERT_STR("team=queue_team", c.queue_label_to_metric_label);
	ASSERT_TRUE(c.queue_label_defaults == NULL);
	ASSERT_EQ(1, c.n_namespace_labels);
	ASSERT_STR("gpu=yes", c.namespace_labels[0]);
	ASSERT_EQ(0, c.n_pod_labels);
	/* every leaf not acted on, by path; none acted on */
	ASSERT_TRUE(warned(&c, "spec.namespace is not acted on"));
	ASSERT_TRUE(warned(&c, "spec.global.replicaCount is not acted on"));
	ASSERT_TRUE(warned(&c, "spec.binder.resourceReservation.appLabel is not acted on"));
	ASSERT_TRUE(warned(&c, "spec.binder.replicas is not acted on"));
	ASSERT_TRUE(!warned(&c, "schedulerName") && !warned(&c, "allocationTimeout") && !warned(&c, "LabelSelector"));
	ASSERT_EQ(4, c.n_warnings);
	gt_kai_config_release(&c);
}

TEST(malformed_values_are_said_and_left_out)
{
	json_t *obj = json_loads("{\"spec\": {\"global\": {\"schedulerName\": 7, \"namespaceLabelSelector\": [1]},"
				 " \"binder\": {\"resourceReservation\": {\"allocationTimeout\": \"40s\"}}}}", 0, NULL);
	struct gt_kai_config c;
	gt_kai_config_read(obj, &c);
	json_decref(obj);
	ASSERT_TRUE(c.scheduler_name == NULL);
	ASSERT_EQ(0, c.resv_timeout_s);
	ASSERT_EQ(0, c.n_namespace_labels);
	ASSERT_TRUE(warned(&c, "spec.global.schedulerName: not a non-empty string"));
	ASSERT_TRUE(warned(&c, "allocationTimeout: not a positive integer"));
	ASSERT_TRUE(warned(&c, "namespaceLabelSelector: not a map of labels"));
	gt_kai_config_release(&c);
	/* no spec at all */
	obj = json_loads("{\"kind\": \"Config\"}", 0, NULL);
	gt_kai_config_read(obj, &c);
	json_decref(obj);
	ASSERT_TRUE(warned(&c, "no spec"));
	gt_kai_config_release(&c);
}

const struct gt_test gt_tests[] = {
	T(takes_what_applies_and_warns_about_the_rest),
	T(malformed_values_are_said_and_left_out),
	{ 0 }
};
