{{- define "tcs.namespace" -}}{{ default .Release.Namespace .Values.namespace }}{{- end -}}
{{- define "tcs.labels" -}}
app.kubernetes.io/name: tcs
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
