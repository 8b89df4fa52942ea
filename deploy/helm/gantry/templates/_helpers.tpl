{{/*
Names and labels. tools/check-deploy renders these templates with a small Go-template
renderer: stay within include/define, if/else/with/range, variables and the functions it
knows (toYaml, nindent, indent, quote, default, trunc, trimSuffix, printf, replace, contains,
eq, ne, not, and, or, gt, lt, int, list, index, fail, required, empty).
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

{{/* Labels for the cluster-wide defaults (priority classes, queues, shard). */}}
{{- define "gantry.defaultsLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gantry
{{- end }}
