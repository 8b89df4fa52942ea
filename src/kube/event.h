/*
 * event.h - the one event writer: a core/v1 Event about an object
 *
 * Every event Gantry posts (the scheduler's Scheduled, Evict, Pipelined,
 * Unschedulable and InvalidObject, the podgrouper's PodGrouperWarning)
 * goes through gt_event_post(). An event is named after its object and
 * content, so a create that is retried after a transport error meets 409
 * rather than making a duplicate. A "once" event leaves the time out of
 * its name: the same message about the same object is recorded once,
 * however often it is met, and after a restart too.
 */
#ifndef GT_EVENT_H
#define GT_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/http.h"

/* Who posts: the client, and the events' source. */
struct gt_event_source {
	struct gt_kube_client *cl;
	const char *component;		/* source.component, reportingComponent */
	const char *instance;		/* reportingInstance */
};

struct gt_event {
	const char *kind, *api_version;	/* the object's */
	const char *ns;			/* "" for a cluster-scoped object: the event goes to "default" */
	const char *name, *uid;
	const char *reason, *message;
	bool warning;			/* type Warning, else Normal */
	bool once;			/* recorded once (see above) */
};

enum gt_event_result {
	GT_EVENT_POSTED,
	GT_EVENT_KNOWN,			/* 409: this event exists already */
	GT_EVENT_FAILED,		/* @why says why (when given) */
};

/* Post @ev (retried on transport errors and 5xx); never fatal. */
enum gt_event_result gt_event_post(const struct gt_event_source *src, const struct gt_event *ev, char *why,
				   size_t why_len);

#endif /* GT_EVENT_H */
