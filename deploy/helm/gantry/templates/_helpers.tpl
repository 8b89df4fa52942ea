{{/*
Names, labels, and the settings Gantry acts on. tools/check-deploy renders these templates with
a small Go-template renderer: stay within include/define, if/else/with/range, variables, .Files.Get
and the functions it knows (toYaml, fromYaml, nindent, indent, quote, default, trunc, trimSuffix,
printf, replace, contains, eq, ne, not, and, or, gt, lt, int, ternary, list, append, has,
join, splitList, dict, set, omit, hasKey, kindIs, concat, mergeOverwrite, deepCopy, index,
lookup, dig, fail, required, empty).
*/}}

{{- define "gantry.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gantry.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The admission webhooks' objects: Service, Secret, webhook configurations (all one name). */}}
{{- define "gantry.admission.fullname" -}}
{{- printf "%s-admission" (include "gantry.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The scheduler component: Deployment, ClusterRole, Service... */}}
{{- define "gantry.scheduler.fullname" -}}
{{- printf "%s-scheduler" (include "gantry.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gantry.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gantry.scheduler.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "gantry.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gantry.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: scheduler
{{- end }}

{{- define "gantry.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "gantry.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gantry
{{- end }}

{{/* Labels for cluster-wide and shared objects (priority classes, queues, shard, namespaces). */}}
{{- define "gantry.defaultsLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gantry
{{- end }}

{{/*
gantry.settings: every setting the templates act on, resolved once from Gantry's key and KAI's
(Gantry's wins when set; switches both have must both be on). Templates read it as a map:
include it and pipe it to fromYaml.
*/}}
{{- define "gantry.settings" -}}
{{- $v := .Values }}
{{- $g := $v.global }}
{{- $rr := $g.resourceReservation }}
{{- $replicas := $v.replicas }}
{{- if kindIs "invalid" $replicas }}{{ $replicas = $v.operator.replicaCount | default 1 }}{{ end }}
replicas: {{ int $replicas }}
leaderElect: {{ or $v.leaderElect $g.leaderElection | ternary true false }}
metricsPort: {{ int ($v.metrics.port | default $v.scheduler.ports.metricsPort | default 8080) }}
image: {{ printf "%s:%s" $v.image.repository ($v.image.tag | default .Chart.AppVersion) | quote }}
pullPolicy: {{ $v.image.pullPolicy | default $v.scheduler.image.pullPolicy | default $g.imagePullPolicy | default "IfNotPresent" }}
logLevel: {{ $v.logLevel | default "info" }}
{{- $pg := $v.podgrouper }}
{{- if kindIs "bool" $pg }}
podgrouper: {{ $pg }}
queueLabelKey: kai.scheduler/queue
{{- else }}
podgrouper: {{ or (not (hasKey $pg "enabled")) $pg.enabled | ternary true false }}
queueLabelKey: {{ $pg.queueLabelKey | default "kai.scheduler/queue" | quote }}
{{- end }}
nodePoolLabelKey: {{ $g.nodePoolLabelKey | default "" | quote }}
reservationNamespace: {{ $v.gpuSharing.reservationNamespace | default $rr.namespace | default "kai-resource-reservation" }}
reservationServiceAccount: {{ $rr.serviceAccount | default "kai-resource-reservation" }}
{{- $ri := $v.binder.resourceReservationImage }}
{{- $tag := $ri.tag | default $g.tag | default "v0.17.0" }}
{{- if or $g.fips $g.fipsMode }}{{ $tag = printf "%s-fips" $tag }}{{ end }}
reservationImage: {{ $v.gpuSharing.reservationImage | default (printf "%s/%s:%s" ($g.registry | default "ghcr.io/kai-scheduler/kai-scheduler") ($ri.name | default "resourcereservation") $tag) | quote }}
reservationRuntimeClass: {{ $v.binder.runtimeClassName | default "" | quote }}
placementGPU: {{ $v.placementStrategy.gpu | default $v.scheduler.placementStrategy | default "binpack" }}
placementCPU: {{ $v.placementStrategy.cpu | default $v.scheduler.placementStrategy | default "binpack" }}
createPriorityClasses: {{ and $v.createPriorityClasses $v.defaultPriorityClasses.enabled | ternary true false }}
createDefaultQueues: {{ and $v.createDefaultQueues $v.defaultQueue.createDefaultQueue | ternary true false }}
createSchedulingShard: {{ and $v.createSchedulingShard $v.defaultShard.enabled | ternary true false }}
createReservationNamespace: {{ $rr.createNamespace | ternary true false }}
createReservationServiceAccount: {{ $rr.createServiceAccount | ternary true false }}
podDisruptionBudget: {{ and $v.scheduler.podDisruptionBudget.enabled (gt (int $replicas) 1) | ternary true false }}
{{- $adm := $v.admission }}
admission: {{ $adm.enabled | ternary true false }}
webhookPort: {{ int ($adm.ports.webhookPort | default 9443) }}
gpuSharingEnabled: {{ $g.gpuSharing | ternary true false }}
blockNvidiaVisibleDevices: {{ $g.blockNvidiaVisibleDevices | ternary true false }}
{{- if hasKey $adm "gpuFractionRuntimeClassName" }}
fractionRuntimeClass: {{ $adm.gpuFractionRuntimeClassName | default "" | quote }}
{{- else if hasKey $adm "gpuPodRuntimeClassName" }}
fractionRuntimeClass: {{ $adm.gpuPodRuntimeClassName | default "" | quote }}
{{- else }}
fractionRuntimeClass: nvidia
{{- end }}
maxUnavailable: {{ $v.scheduler.podDisruptionBudget.maxUnavailable | default 1 }}
{{- end }}

{{/*
gantry.actions: --actions from scheduler.actions (KAI's shard actions): the built-in actions,
less those with enabled: false. Empty when scheduler.actions is empty (Gantry's default: all).
*/}}
{{- define "gantry.actions" -}}
{{- $acts := .Values.scheduler.actions | default dict }}
{{- if $acts }}
{{- $known := list "allocate" "consolidation" "reclaim" "preempt" "stalegangeviction" }}
{{- range $name, $cfg := $acts }}
{{- if not (has $name $known) }}
{{- fail (printf "scheduler.actions.%s: Gantry has no action %q (it runs %s)" $name $name (join ", " $known)) }}
{{- end }}
{{- end }}
{{- $on := list }}
{{- range $name := $known }}
{{- $cfg := index $acts $name | default dict }}
{{- if or (not (hasKey $cfg "enabled")) $cfg.enabled }}{{ $on = append $on $name }}{{ end }}
{{- end }}
{{- if not $on }}
{{- fail "scheduler.actions: every action is disabled; Gantry would never schedule" }}
{{- end }}
{{- join "," $on }}
{{- end }}
{{- end }}

{{/*
gantry.affinity: KAI's merge of a component's affinity with global.affinity: node affinity,
pod affinity and pod anti-affinity each from the component's, else global's; without either
pod anti-affinity, a preferred one that spreads the replicas over nodes (also required with
global.requireDefaultPodAntiAffinityTerm).
*/}}
{{- define "gantry.affinity" -}}
{{- $local := .Values.affinity | default dict }}
{{- $global := .Values.global.affinity | default dict }}
{{- $out := dict }}
{{- range $k := list "nodeAffinity" "podAffinity" "podAntiAffinity" }}
{{- if hasKey $local $k }}{{ $_ := set $out $k (index $local $k) }}
{{- else if hasKey $global $k }}{{ $_ := set $out $k (index $global $k) }}
{{- end }}
{{- end }}
{{- if not (hasKey $out "podAntiAffinity") }}
{{- $term := dict "topologyKey" "kubernetes.io/hostname" "labelSelector" (dict "matchLabels" (include "gantry.selectorLabels" . | fromYaml)) }}
{{- $anti := dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" 100 "podAffinityTerm" $term)) }}
{{- if .Values.global.requireDefaultPodAntiAffinityTerm }}
{{- $_ := set $anti "requiredDuringSchedulingIgnoredDuringExecution" (list $term) }}
{{- end }}
{{- $_ := set $out "podAntiAffinity" $anti }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/* gantry.valueAt: the value at a dotted path of .root, as YAML ("null" when absent). */}}
{{- define "gantry.valueAt" -}}
{{- $cur := .root }}
{{- range $k := splitList "." .path }}
{{- if kindIs "map" $cur }}{{ $cur = index $cur $k }}{{ else }}{{ $cur = "" }}{{ end }}
{{- end }}
{{- toYaml $cur }}
{{- end }}
