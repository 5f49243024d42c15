#!/usr/bin/env bash
# Rolls out a release with plain kubectl, migrations first:
#   1. render the kustomization once (so every step applies the same objects);
#   2. apply the ConfigMap, delete the previous migration Job (Jobs are immutable), create the
#      new one and wait until it has completed; stop here if it failed (nothing else changed);
#   3. apply everything else and wait for the Deployments to roll out.
# Usage: deploy/k8s/deploy.sh [KUSTOMIZATION_DIR]   (default: deploy/k8s)
# Env:   NAMESPACE (default federation-platform), MIGRATE_TIMEOUT (seconds, default 1800),
#        ROLLOUT_TIMEOUT (default 10m), KUBECTL (default kubectl).
# The namespace and the Secret platform-secrets must exist (deploy/k8s/examples/platform-secrets.yaml).
set -euo pipefail

dir=${1:-deploy/k8s}
ns=${NAMESPACE:-federation-platform}
migrate_timeout=${MIGRATE_TIMEOUT:-1800}
rollout_timeout=${ROLLOUT_TIMEOUT:-10m}
kubectl=${KUBECTL:-kubectl}
job=platform-migrate

rendered=$(mktemp)
trap 'rm -f "$rendered"' EXIT
"$kubectl" kustomize "$dir" >"$rendered"

if ! "$kubectl" -n "$ns" get secret platform-secrets >/dev/null; then
  echo "deploy: create the Secret platform-secrets in namespace $ns first (deploy/k8s/examples/platform-secrets.yaml)" >&2
  exit 1
fi

echo "== migrations"
"$kubectl" apply -f "$rendered" -l 'app.kubernetes.io/component=config'
"$kubectl" -n "$ns" delete job "$job" --ignore-not-found --wait=true
"$kubectl" apply -f "$rendered" -l 'app.kubernetes.io/component=migration'

waited=0
while :; do
  succeeded=$("$kubectl" -n "$ns" get job "$job" -o jsonpath='{.status.succeeded}')
  failed=$("$kubectl" -n "$ns" get job "$job" -o jsonpath='{.status.conditions[?(@.type=="Failed")].status}')
  if [ "${succeeded:-0}" -ge 1 ]; then
    break
  fi
  if [ "$failed" = "True" ] || [ "$waited" -ge "$migrate_timeout" ]; then
    echo "deploy: migration job $job did not complete; the apps were not changed. Its log:" >&2
    "$kubectl" -n "$ns" logs "job/$job" --all-containers --tail=200 >&2 || true
    exit 1
  fi
  sleep 5
  waited=$((waited + 5))
done
"$kubectl" -n "$ns" logs "job/$job" --all-containers --tail=50 || true

echo "== apps"
"$kubectl" apply -f "$rendered" -l 'app.kubernetes.io/component!=migration'
"$kubectl" -n "$ns" rollout status deployment -l app.kubernetes.io/part-of=federation-platform --timeout="$rollout_timeout"
echo "== done"
