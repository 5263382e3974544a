{{/* Chart name, overridable by nameOverride. */}}
{{- define "baton.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource name prefix: "<release>-baton", or just the release name when it already contains the chart name. */}}
{{- define "baton.fullname" -}}
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

{{/* "baton-0.1.0", for the helm.sh/chart label. */}}
{{- define "baton.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that select the pods; never change them, a Deployment's selector is immutable. */}}
{{- define "baton.selectorLabels" -}}
app.kubernetes.io/name: {{ include "baton.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels on every resource. */}}
{{- define "baton.labels" -}}
helm.sh/chart: {{ include "baton.chart" . }}
{{ include "baton.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: baton
{{- end }}

{{- define "baton.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "baton.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "baton.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Name of the Dapr Configuration rendered by the chart. */}}
{{- define "baton.daprConfigurationName" -}}
{{- printf "%s-dapr" (include "baton.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Value of dapr.io/config: an explicit name, else the chart's own Configuration, else none. */}}
{{- define "baton.daprConfig" -}}
{{- if .Values.dapr.config }}
{{- .Values.dapr.config }}
{{- else if and .Values.dapr.components.enabled .Values.dapr.components.configuration.enabled }}
{{- include "baton.daprConfigurationName" . }}
{{- end }}
{{- end }}

{{/* host:port of Redis for the Dapr components. */}}
{{- define "baton.daprRedisHost" -}}
{{- default (printf "%s:%v" .Values.redis.host .Values.redis.port) .Values.dapr.components.redis.host }}
{{- end }}

{{/*
Pod annotations that make the Dapr injector add the sidecar. Every value is a quoted string: the
injector reads annotations as strings and Kubernetes rejects non-string annotation values.
dapr.io/app-max-concurrency is deliberately not set: it caps every request from daprd into the app,
actor callbacks included, and a cap shared by all actors lets a few slow turns (or long polls
arriving by service invocation) starve the WorkflowActor and QueueActor calls that would unblock
them. Baton bounds its own work instead.
*/}}
{{- define "baton.daprAnnotations" -}}
{{- if .Values.dapr.enabled }}
dapr.io/enabled: "true"
dapr.io/app-id: {{ .Values.dapr.appId | quote }}
dapr.io/app-port: {{ .Values.containerPort | int | quote }}
dapr.io/app-protocol: {{ .Values.dapr.appProtocol | quote }}
{{- with (include "baton.daprConfig" .) }}
dapr.io/config: {{ . | quote }}
{{- end }}
dapr.io/log-level: {{ .Values.dapr.logLevel | quote }}
dapr.io/log-as-json: {{ .Values.dapr.logAsJson | toString | quote }}
dapr.io/enable-metrics: {{ .Values.dapr.enableMetrics | toString | quote }}
dapr.io/metrics-port: {{ .Values.dapr.metricsPort | int | quote }}
dapr.io/graceful-shutdown-seconds: {{ .Values.dapr.gracefulShutdownSeconds | int | quote }}
dapr.io/block-shutdown-duration: {{ printf "%ds" (.Values.dapr.blockShutdownSeconds | int) | quote }}
dapr.io/internal-grpc-port: {{ .Values.dapr.internalGrpcPort | int | quote }}
{{- if .Values.dapr.nativeSidecar }}
dapr.io/enable-native-sidecar: "true"
{{- end }}
{{- if .Values.dapr.enableApiLogging }}
dapr.io/enable-api-logging: "true"
{{- end }}
{{- with .Values.dapr.maxBodySize }}
dapr.io/max-body-size: {{ . | quote }}
{{- end }}
{{- with .Values.dapr.sidecar.resources.requests.cpu }}
dapr.io/sidecar-cpu-request: {{ . | toString | quote }}
{{- end }}
{{- with .Values.dapr.sidecar.resources.requests.memory }}
dapr.io/sidecar-memory-request: {{ . | toString | quote }}
{{- end }}
{{- with .Values.dapr.sidecar.resources.limits.cpu }}
dapr.io/sidecar-cpu-limit: {{ . | toString | quote }}
{{- end }}
{{- with .Values.dapr.sidecar.resources.limits.memory }}
dapr.io/sidecar-memory-limit: {{ . | toString | quote }}
{{- end }}
{{- with (include "baton.apiTokenSecretName" .) }}
dapr.io/api-token-secret: {{ . | quote }}
{{- end }}
{{- with (include "baton.appTokenSecretName" .) }}
dapr.io/app-token-secret: {{ . | quote }}
{{- end }}
{{- if .Values.dapr.appHealthCheck.enabled }}
dapr.io/enable-app-health-check: "true"
dapr.io/app-health-check-path: {{ .Values.dapr.appHealthCheck.path | quote }}
dapr.io/app-health-probe-interval: {{ .Values.dapr.appHealthCheck.intervalSeconds | int | quote }}
dapr.io/app-health-probe-timeout: {{ .Values.dapr.appHealthCheck.timeoutMilliseconds | int | quote }}
dapr.io/app-health-threshold: {{ .Values.dapr.appHealthCheck.threshold | int | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* REDIS_URL without the password part; the Deployment adds $(REDIS_PASSWORD) when auth is on. */}}
{{- define "baton.redisUrl" -}}
{{- $scheme := ternary "rediss" "redis" .Values.redis.tls }}
{{- if .Values.redis.auth.enabled }}
{{- printf "%s://:$(REDIS_PASSWORD)@%s:%v/%v" $scheme .Values.redis.host .Values.redis.port .Values.redis.db }}
{{- else }}
{{- printf "%s://%s:%v/%v" $scheme .Values.redis.host .Values.redis.port .Values.redis.db }}
{{- end }}
{{- end }}

{{/* Secret of DAPR_API_TOKEN (key "token"): the existing one, the chart's own, or none when disabled. */}}
{{- define "baton.apiTokenSecretName" -}}
{{- if and .Values.dapr.enabled .Values.dapr.apiToken.enabled }}
{{- default (printf "%s-dapr-api-token" (include "baton.fullname" .)) .Values.dapr.apiToken.existingSecret }}
{{- end }}
{{- end }}

{{/* Secret of APP_API_TOKEN (key "token"), likewise. */}}
{{- define "baton.appTokenSecretName" -}}
{{- if and .Values.dapr.enabled .Values.dapr.appToken.enabled }}
{{- default (printf "%s-app-api-token" (include "baton.fullname" .)) .Values.dapr.appToken.existingSecret }}
{{- end }}
{{- end }}

{{/* Secret of BATON_ADMIN_KEY_SECRET: the existing one, the chart's own, or none when auth is off. */}}
{{- define "baton.adminKeySecretName" -}}
{{- if .Values.auth.enabled }}
{{- default (printf "%s-admin-key" (include "baton.fullname" .)) .Values.auth.existingSecret }}
{{- end }}
{{- end }}

{{/* The Secret holding BATON_SECRETS_KEY: the user's, or the chart's own "<fullname>-secrets-key". */}}
{{- define "baton.secretsKeySecretName" -}}
{{- default (printf "%s-secrets-key" (include "baton.fullname" .)) .Values.secretsKey.existingSecret }}
{{- end }}

{{/* Key of BATON_SECRETS_KEY in that Secret: "key" in the chart's own, existingSecretKey in an existing one. */}}
{{- define "baton.secretsKeySecretKey" -}}
{{- ternary .Values.secretsKey.existingSecretKey "key" (ne .Values.secretsKey.existingSecret "") }}
{{- end }}

{{/* Key of the admin key's secret in that Secret: "token" in the chart's own, existingSecretKey in an existing one. */}}
{{- define "baton.adminKeySecretKey" -}}
{{- ternary .Values.auth.existingSecretKey "token" (ne .Values.auth.existingSecret "") }}
{{- end }}

{{/*
A Secret holding a random token under "token" (the key Dapr's injector reads). An installed
release keeps its value: regenerating it on every upgrade would make old pods and new sidecars
disagree mid-rollout (and, for the admin key, lock its holders out). `helm template` has no
cluster to look in and renders a fresh value.
*/}}
{{- define "baton.tokenSecret" -}}
{{- $existing := lookup "v1" "Secret" .ctx.Release.Namespace .name }}
{{- $token := "" }}
{{- if and $existing $existing.data (hasKey $existing.data "token") }}
{{- $token = index $existing.data "token" }}
{{- else }}
{{- $token = randAlphaNum 48 | b64enc }}
{{- end }}
# {{ .purpose }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .name }}
  namespace: {{ .ctx.Release.Namespace }}
  labels:
    {{- include "baton.labels" .ctx | nindent 4 }}
type: Opaque
data:
  token: {{ $token | quote }}
{{- end }}

{{/*
Refuses values that would deploy something broken: Cassandra replication that falls back to
SimpleStrategy factor 1 or misses the local data centre, and shutdown timings that let Kubernetes
kill the pod while Baton or its sidecar is still stopping.
*/}}
{{- define "baton.checkValues" -}}
{{- $cassandra := .Values.cassandra }}
{{- if eq .Values.profile "distributed" }}
{{- $replication := toString $cassandra.replication | trim }}
{{- if eq $replication "" }}
{{- fail "cassandra.replication is empty: Baton would create its keyspace with SimpleStrategy factor 1. Set e.g. \"dc1:3\" (\"1\" only for development)" }}
{{- end }}
{{- if regexMatch "^[A-Za-z0-9_.-]+:[0-9]+(,[A-Za-z0-9_.-]+:[0-9]+)*$" $replication }}
{{- $dcs := list }}
{{- range splitList "," $replication }}{{ $dcs = append $dcs (first (splitList ":" .)) }}{{ end }}
{{- if not (has $cassandra.localDc $dcs) }}
{{- fail (printf "cassandra.replication %q has no replicas in cassandra.localDc %q: LOCAL_QUORUM could never be met" $replication $cassandra.localDc) }}
{{- end }}
{{- end }}
{{- end }}
{{- $grace := int .Values.terminationGracePeriodSeconds }}
{{- $drain := int .Values.shutdown.drainSeconds }}
{{- $timeout := int .Values.shutdown.timeoutSeconds }}
{{- /* Baton exits at the latest drain + 3 x timeout after SIGTERM (src/exit-deadline.ts). */}}
{{- $exit := add $drain (mul 3 $timeout) }}
{{- if le $grace $exit }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed shutdown.drainSeconds + 3 x shutdown.timeoutSeconds (%d), the longest Baton takes to exit" $grace $exit) }}
{{- end }}
{{- if .Values.dapr.enabled }}
{{- $block := int .Values.dapr.blockShutdownSeconds }}
{{- $graceful := int .Values.dapr.gracefulShutdownSeconds }}
{{- if le $grace (add $timeout $block) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed shutdown.timeoutSeconds + dapr.blockShutdownSeconds (%d)" $grace (add $timeout $block)) }}
{{- end }}
{{- if le $grace (add $block $graceful) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed dapr.blockShutdownSeconds + dapr.gracefulShutdownSeconds (%d)" $grace (add $block $graceful)) }}
{{- end }}
{{- if .Values.dapr.nativeSidecar }}
{{- if not (semverCompare ">=1.29.0-0" .Capabilities.KubeVersion.Version) }}
{{- fail (printf "dapr.nativeSidecar needs Kubernetes 1.29 or later (this is %s)" .Capabilities.KubeVersion.Version) }}
{{- end }}
{{- /* Baton stops first, then its sidecar: the grace period spans both. */}}
{{- if le $grace (add $exit $block $graceful) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed shutdown.drainSeconds + 3 x shutdown.timeoutSeconds + dapr.blockShutdownSeconds + dapr.gracefulShutdownSeconds (%d) with dapr.nativeSidecar" $grace (add $exit $block $graceful)) }}
{{- end }}
{{- end }}
{{- if lt $block (add $drain $timeout) }}
{{- fail (printf "dapr.blockShutdownSeconds (%d) must cover shutdown.drainSeconds + shutdown.timeoutSeconds (%d): the sidecar would stop while Baton still uses it" $block (add $drain $timeout)) }}
{{- end }}
{{- $health := .Values.dapr.appHealthCheck }}
{{- if and $health.enabled (gt (int $health.timeoutMilliseconds) (mul (int $health.intervalSeconds) 1000)) }}
{{- fail "dapr.appHealthCheck.timeoutMilliseconds must not exceed intervalSeconds (daprd requires it)" }}
{{- end }}
{{- end }}
{{- end }}
