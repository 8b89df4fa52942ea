#include "kube/event.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/json.h"
#include "util/hash.h"
#include "util/time.h"

enum gt_event_result gt_event_post(const struct gt_event_source *src, const struct gt_event *ev, char *why,
				   size_t why_len)
{
	char ts[GT_TIME_LEN], mts[GT_TIME_LEN], name[400], path[600];
	gt_time_now_rfc3339(ts, sizeof(ts), 0);
	gt_time_now_rfc3339(mts, sizeof(mts), 6);
	uint64_t h = gt_hash_add(gt_hash_add(gt_hash_str(ev->uid), ev->reason), ev->message);
	if (!ev->once)
		h = gt_hash_add(h, mts);
	snprintf(name, sizeof(name), "%.200s.%016llx", ev->name, (unsigned long long)h);
	const char *ns = *ev->ns ? ev->ns : "default";
	json_t *j = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:s, s:s, "
			      "s:{s:s}, s:s, s:s, s:i, s:s, s:s}",
			      "apiVersion", "v1", "kind", "Event", "metadata", "name", name, "namespace", ns,
			      "involvedObject", "kind", ev->kind, "apiVersion", ev->api_version, "name", ev->name,
			      "namespace", ev->ns, "uid", ev->uid, "reason", ev->reason, "message", ev->message,
			      "type", ev->warning ? "Warning" : "Normal", "source", "component", src->component,
			      "firstTimestamp", ts, "lastTimestamp", ts, "count", 1, "reportingComponent",
			      src->component, "reportingInstance", src->instance);
	char *body = gt_json_dump_take(j);
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/events", ns);
	struct gt_kube_resp r;
	gt_kube_call(src->cl, GT_VERB_POST, "POST", path, "application/json", body, &r);
	free(body);
	enum gt_event_result res = r.status == 201 || r.status == 200 ? GT_EVENT_POSTED
				   : r.status == 409			? GT_EVENT_KNOWN
									: GT_EVENT_FAILED;
	if (res == GT_EVENT_FAILED && why)
		snprintf(why, why_len, "%s", gt_kube_why(&r));
	gt_kube_resp_release(&r);
	return res;
}
