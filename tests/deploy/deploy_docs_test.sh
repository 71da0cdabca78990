#!/usr/bin/env bash
# deploy_docs_test.sh DOCS_DEPLOY_MD IDFORGE_BINARY: the systemd unit of docs/DEPLOY.md passes
# `systemd-analyze verify` (with ExecStart pointed at the built binary, which verify wants to
# exist), and its Kubernetes manifest parses as YAML with the probes and arguments the page
# explains. Exit 77 (skipped) where systemd-analyze or python3-yaml is missing.
set -euo pipefail
doc="$1"
bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"  # ExecStart needs an absolute path
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The first ```ini block is the unit, the first ```yaml block the manifest.
awk '/^```ini$/{on=1; next} /^```$/{if(on){exit}} on' "$doc" >"$tmp/idforge.service"
awk '/^```yaml$/{on=1; next} /^```$/{if(on){exit}} on' "$doc" >"$tmp/idforge.yaml"
[ -s "$tmp/idforge.service" ] || fail "no \`\`\`ini block (the unit) in $doc"
[ -s "$tmp/idforge.yaml" ] || fail "no \`\`\`yaml block (the manifest) in $doc"
grep -q '^ExecStart=/usr/bin/idforge serve ' "$tmp/idforge.service" || fail "the unit does not run idforge serve"

# The unit's ExecStart arguments must be ones serve takes: run them with --help.
args="$(sed -n 's|^ExecStart=/usr/bin/idforge ||p' "$tmp/idforge.service")"
# shellcheck disable=SC2086
"$bin" $args --help >/dev/null || fail "serve refuses the unit's arguments: $args"

if command -v systemd-analyze >/dev/null; then
  mkdir -p "$tmp/u"
  sed "s|^ExecStart=/usr/bin/idforge|ExecStart=$bin|" "$tmp/idforge.service" >"$tmp/u/idforge.service"
  out="$(systemd-analyze verify "$tmp/u/idforge.service" 2>&1 || true)"
  # verify also reports on the host's own units; only lines about this unit count.
  mine="$(printf '%s\n' "$out" | grep 'idforge.service' || true)"
  [ -z "$mine" ] || fail "systemd-analyze verify: $mine"
  echo "ok: systemd-analyze verify accepts the unit"
else
  echo "skip: systemd-analyze is not installed"
  skipped=1
fi

if python3 -c 'import yaml' 2>/dev/null; then
  python3 - "$tmp/idforge.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = {d["kind"]: d for d in docs}
assert set(kinds) == {"Service", "StatefulSet"}, kinds.keys()
s = kinds["StatefulSet"]
c = s["spec"]["template"]["spec"]["containers"][0]
assert c["args"][0] == "serve", c["args"]
assert "--lease-store=ordinal:" in c["args"], c["args"]
assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
assert s["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] >= 10
assert s["spec"]["serviceName"] == kinds["Service"]["metadata"]["name"]
print("ok: the manifest parses, probes on /healthz and /readyz, ordinal: leases")
PY
  # Its serve arguments too.
  margs="$(python3 -c 'import sys,yaml; d=[x for x in yaml.safe_load_all(open(sys.argv[1])) if x and x["kind"]=="StatefulSet"][0]; print(" ".join(d["spec"]["template"]["spec"]["containers"][0]["args"]))' "$tmp/idforge.yaml")"
  # shellcheck disable=SC2086
  "$bin" $margs --help >/dev/null || fail "serve refuses the manifest's arguments: $margs"
else
  echo "skip: python3-yaml is not installed"
  skipped=1
fi
[ -z "${skipped:-}" ] || exit 77
