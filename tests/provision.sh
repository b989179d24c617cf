#!/usr/bin/env bash
# Provision the real components the tests run against, into a cache keyed by version.
#
#   bash tests/provision.sh            # everything (idempotent: cached pieces are reused)
#   bash tests/provision.sh etcd kafka # only some pieces
#
# Pieces: etcd, kube-apiserver, kafka, spark-kafka, strimzi-operator (Strimzi's cluster operator built from source,
# releases $STRIMZI_OPERATOR_VERSIONS), flux (Flux's source-controller and kustomize-controller, $FLUX_VERSION).
# Each lands in $KO_CACHE/<piece>-<version>/ and is only
# built or fetched when that directory lacks its ".complete" marker, so an interrupted run is redone cleanly.
# Nothing is written into the git work tree. The last line printed is the env file to source.
set -euo pipefail

KO_CACHE=${KO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-offsets-testbin}
K8S_VERSION=${K8S_VERSION:-1.32.13}
ETCD_VERSION=${ETCD_VERSION:-3.5.21}
KAFKA_VERSION=${KAFKA_VERSION:-4.3.1}
LOG4J_VERSION=${LOG4J_VERSION:-2.25.1}
DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1
# Strimzi releases whose cluster operator is built (the first is the default of `python -m tests.env up`).
STRIMZI_OPERATOR_VERSIONS=${STRIMZI_OPERATOR_VERSIONS:-1.2.0 0.45.2 0.51.0}
# Flux's source-controller and kustomize-controller (both release their Go modules with the same version).
# 1.9.3 is the newest release whose every dependency the Go module proxy serves here and that builds with this
# machine's Go (1.26): 1.10.x needs Go 1.27 (FLUX_GOTOOLCHAIN=go1.27.3 fetches that toolchain from the proxy), but
# the proxy refuses some of its dependencies (github.com/fluxcd/pkg/artifact v0.27.1, apis/crypto v0.5.0,
# masktoken v0.10.0: "403 This module version is not available"), and source-controller 1.9.4-1.9.6 need
# pkg/artifact v0.18.2/v0.18.3, refused likewise.
FLUX_VERSION=${FLUX_VERSION:-1.9.3}
FLUX_GOTOOLCHAIN=${FLUX_GOTOOLCHAIN:-local}
# Slim source tarballs of those releases (Strimzi's own sources, test sources left out) in shared/vendor/strimzi
# beside the checkout (or beside the folder of worktrees).
root=$(cd "$(dirname "$0")/.." && pwd)
STRIMZI_VENDOR=${STRIMZI_VENDOR:-$( [ -d "$root/../shared/vendor/strimzi" ] && echo "$root/../shared/vendor/strimzi" \
  || echo "$root/../../shared/vendor/strimzi")}

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
mkdir -p "$KO_CACHE"
here=$(cd "$(dirname "$0")" && pwd)
# The Python whose pyspark decides the Spark connector version: $PYTHON, else the project venv, else python3.
PYTHON=${PYTHON:-$( [ -x "$here/../.venv/bin/python" ] && echo "$here/../.venv/bin/python" || echo python3)}

log() { printf '[provision] %s\n' "$*" >&2; }
die() { printf '[provision] ERROR: %s\n' "$*" >&2; exit 1; }

# A registry that cannot be reached must say so plainly, not as a 200-line Go or Maven stack.
registry_hint() {
  die "$1 failed. Check that $2 is reachable from this machine (proxy settings, network) and re-run; the log above has the details."
}

done_marker() { [ -f "$1/.complete" ]; }

build_etcd() {
  local dest="$KO_CACHE/etcd-v$ETCD_VERSION"
  done_marker "$dest" && { log "etcd v$ETCD_VERSION cached"; return; }
  log "building etcd v$ETCD_VERSION from go.etcd.io/etcd/server/v3 (a few minutes, once)"
  local work; work=$(mktemp -d)
  (
    cd "$work"
    go mod init example.invalid/etcd-build >/dev/null 2>&1
    go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" || registry_hint "go get etcd" "the Go module proxy ($(go env GOPROXY))"
    mkdir -p "$dest"
    go build -trimpath -ldflags "-s -w" -o "$dest/etcd" go.etcd.io/etcd/server/v3
  )
  rm -rf "$work"
  # Not `| head -1`: under pipefail, head closing the pipe early can kill etcd with SIGPIPE (exit 141), which failed
  # a fresh machine's first provisioning after a successful build.
  local version; version=$("$dest/etcd" --version)
  printf '%s\n' "${version%%$'\n'*}" >&2
  touch "$dest/.complete"
}

build_kube_apiserver() {
  local dest="$KO_CACHE/kube-apiserver-v$K8S_VERSION"
  done_marker "$dest" && { log "kube-apiserver v$K8S_VERSION cached"; return; }
  log "building kube-apiserver v$K8S_VERSION from k8s.io/kubernetes (10-20 minutes on 2 cores, once)"
  local work; work=$(mktemp -d)
  local minor=${K8S_VERSION#1.}; minor=${minor%%.*}
  (
    cd "$work"
    go mod init example.invalid/kube-apiserver-build >/dev/null 2>&1
    go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" >/dev/null \
      || registry_hint "go mod download k8s.io/kubernetes" "the Go module proxy ($(go env GOPROXY))"
    local gomod; gomod=$(go list -m -f '{{.GoMod}}' "k8s.io/kubernetes@v$K8S_VERSION")
    # k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging paths, which
    # a dependent cannot see; map each to the published v0.<minor>.<patch> instead.
    for m in $(awk '$1 ~ /^k8s\.io\// && $2 == "v0.0.0" {print $1}' "$gomod"); do
      go mod edit -replace="$m=$m@v0.${K8S_VERSION#1.}"
    done
    go get "k8s.io/kubernetes/cmd/kube-apiserver@v$K8S_VERSION" || registry_hint "go get kube-apiserver" "the Go module proxy"
    mkdir -p "$dest"
    go build -trimpath -ldflags "-s -w \
      -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION \
      -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
      -X k8s.io/component-base/version.gitTreeState=clean" \
      -o "$dest/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
  )
  rm -rf "$work"
  "$dest/kube-apiserver" --version >&2
  touch "$dest/.complete"
}

# mvn copy-dependencies of a throwaway pom into $2, for the dependencies given as XML in $3; extra mvn args in $4.
# Returns non-zero (does not exit) on failure, so a caller can try another version first.
maven_copy() {
  local name=$1 dest=$2 deps=$3 work; work=$(mktemp -d)
  cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>local.kubectl-offsets</groupId><artifactId>$name</artifactId><version>0</version><packaging>pom</packaging>
  <dependencies>$deps</dependencies>
</project>
EOF
  # A mirror of everything to Central: dependency POMs (Spark's) declare other repositories we cannot reach.
  cat >"$work/settings.xml" <<'EOF'
<settings><mirrors><mirror><id>central-only</id><mirrorOf>*</mirrorOf>
  <url>https://repo.maven.apache.org/maven2</url></mirror></mirrors></settings>
EOF
  mkdir -p "$dest"
  local rc=0
  mvn -B -q -Dstyle.color=never -s "$work/settings.xml" -f "$work/pom.xml" "$DEPENDENCY_PLUGIN:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$dest" ${4:-} || rc=$?
  rm -rf "$work"
  return $rc
}

dep() { printf '<dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>' "$1" "$2" "$3"; }

fetch_kafka() {
  local dest="$KO_CACHE/kafka-$KAFKA_VERSION"
  done_marker "$dest" && { log "kafka $KAFKA_VERSION cached"; return; }
  log "fetching Apache Kafka $KAFKA_VERSION (broker, Connect, MirrorMaker 2, file connectors) from Maven Central"
  local k=org.apache.kafka
  maven_copy kafka "$dest/lib" "$(dep $k kafka_2.13 "$KAFKA_VERSION")$(dep $k connect-runtime "$KAFKA_VERSION")\
$(dep $k connect-mirror "$KAFKA_VERSION")$(dep $k connect-file "$KAFKA_VERSION")$(dep $k connect-json "$KAFKA_VERSION")\
$(dep $k kafka-tools "$KAFKA_VERSION")\
$(dep org.apache.logging.log4j log4j-core "$LOG4J_VERSION")$(dep org.apache.logging.log4j log4j-slf4j-impl "$LOG4J_VERSION")" \
    || registry_hint "mvn copy-dependencies (kafka $KAFKA_VERSION)" "Maven Central"
  echo "$KAFKA_VERSION" >"$dest/VERSION"
  touch "$dest/.complete"
}

pyspark_version() {
  "$PYTHON" -c 'import importlib.metadata as m; print(m.version("pyspark"))' 2>/dev/null \
    || die "pyspark is not installed; run: pip install -e '.[spark,test]'"
}

# Spark's Kafka source needs spark-sql-kafka-0-10 and spark-token-provider-kafka-0-10 (KafkaConfigUpdater lives
# there), plus kafka-clients and commons-pool2; everything else is already among pyspark's own jars.
SPARK_KAFKA_ARTIFACTS=spark-sql-kafka-0-10_2.13,spark-token-provider-kafka-0-10_2.13,kafka-clients,commons-pool2
# Maven Central (as reachable from the dev/CI machines, 2026-11) lacks spark-sql-kafka 4.2.1/4.3.0 and every
# spark-token-provider-kafka after 4.0.0 (bar 4.1.0-preview1), although PyPI has pyspark 4.3.0. When the jars of
# the exact pyspark version are missing we fall back to this pair, verified to read Kafka with pyspark 4.3.0
# (the connector's APIs are stable within 4.x). Override with SPARK_KAFKA_VERSION / SPARK_TOKEN_PROVIDER_VERSION.
SPARK_KAFKA_FALLBACK=${SPARK_KAFKA_FALLBACK:-4.2.0/4.0.0}

spark_kafka_deps() {  # $1 = spark-sql-kafka version, $2 = token provider version
  local g=org.apache.spark tp=spark-token-provider-kafka-0-10_2.13
  printf '<dependency><groupId>%s</groupId><artifactId>spark-sql-kafka-0-10_2.13</artifactId><version>%s</version>' $g "$1"
  printf '<exclusions><exclusion><groupId>%s</groupId><artifactId>%s</artifactId></exclusion></exclusions></dependency>' $g $tp
  dep $g $tp "$2"
}

spark_kafka_complete() {  # every needed artifact landed in $1
  local a; for a in ${SPARK_KAFKA_ARTIFACTS//,/ }; do
    compgen -G "$1/$a-[0-9]*.jar" >/dev/null || { log "missing $a in $1"; return 1; }
  done
}

fetch_spark_kafka() {
  local v; v=$(pyspark_version)
  local dest="$KO_CACHE/spark-kafka-$v"
  done_marker "$dest" && { log "spark-sql-kafka for pyspark $v cached"; return; }
  local sk=${SPARK_KAFKA_VERSION:-$v}; local tp=${SPARK_TOKEN_PROVIDER_VERSION:-$sk}
  log "fetching spark-sql-kafka-0-10_2.13:$sk (token provider $tp) and its runtime deps from Maven Central"
  rm -rf "$dest"
  # Only what pyspark's own jars lack; second copies of scala/hadoop/lz4 would clash on the classpath.
  if ! maven_copy spark-kafka "$dest" "$(spark_kafka_deps "$sk" "$tp")" "-DincludeArtifactIds=$SPARK_KAFKA_ARTIFACTS"; then
    [ -z "${SPARK_KAFKA_VERSION:-}" ] || registry_hint "mvn copy-dependencies (spark-sql-kafka $sk)" "Maven Central"
    sk=${SPARK_KAFKA_FALLBACK%/*}; tp=${SPARK_KAFKA_FALLBACK#*/}
    log "WARNING: the Spark Kafka connector jars for pyspark $v are not on Maven Central; using spark-sql-kafka $sk with token provider $tp"
    rm -rf "$dest"
    maven_copy spark-kafka "$dest" "$(spark_kafka_deps "$sk" "$tp")" "-DincludeArtifactIds=$SPARK_KAFKA_ARTIFACTS" \
      || registry_hint "mvn copy-dependencies (spark-sql-kafka $sk)" "Maven Central"
  fi
  spark_kafka_complete "$dest" || die "the Spark Kafka connector jars in $dest are incomplete"
  printf 'pyspark=%s\nspark-sql-kafka=%s\nspark-token-provider-kafka=%s\n' "$v" "$sk" "$tp" >"$dest/VERSIONS"
  touch "$dest/.complete"
}


# ---- Strimzi's cluster operator, built from source ----------------------------------------------------------------
# Strimzi publishes the operator as container images, not on Maven Central: build cluster-operator and the modules it
# needs (`mvn -pl cluster-operator -am`) and keep the jar, its lib/, the release's CRDs and kafka-versions.yaml.
# Per release: the JDK, and the artifact versions the tag pins that Maven Central lacks (see the vendor RECIPE.md).
strimzi_jdk() {
  case $1 in
    0.45.*) echo /usr/lib/jvm/java-17-openjdk-amd64 ;;
    *) echo "${STRIMZI_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}" ;;  # needs >= 21; JDK 25 needs the flags below
  esac
}

strimzi_maven_flags() {
  case $1 in
    0.45.*) echo "-Dstrimzi-oauth.version=0.15.0" ;;  # the tag's 0.15.1 is not on Maven Central
    0.51.*) echo "-Dmaven.compiler.version=3.14.1 -Dmaven.compiler.proc=full -Dlombok.version=1.18.42" ;;
    *) echo "-Dmaven.compiler.version=3.14.1 -Dmaven.compiler.proc=full -Dlombok.version=1.18.42" \
            "-Dfabric8.kubernetes-client.version=7.7.0 -Dfabric8.openshift-client.version=7.7.0" \
            "-Dfabric8.kubernetes-model.version=7.7.0 -Dfabric8.zjsonpatch.version=7.7.0" ;;  # 7.8.0 not on Central
  esac
}

# Unpack release $1's source into the empty directory $2.
strimzi_source() {
  local ver=$1 src=$2 tarball="$STRIMZI_VENDOR/strimzi-$1-co-src.tar.gz"
  if [ -f "$tarball" ]; then
    tar xzf "$tarball" -C "$src"
    return
  fi
  # Elsewhere (no vendored tarball): the release's whole source archive from GitHub. Untested here (this machine
  # has no route to GitHub); the Maven command is the same, the test-only dependencies may need stripping with the
  # vendor folder's prepare-slim.py.
  log "no $tarball (STRIMZI_VENDOR names the folder of vendored sources); fetching Strimzi $ver's source from GitHub"
  curl -fsSL "https://github.com/strimzi/strimzi-kafka-operator/archive/refs/tags/$ver.tar.gz" \
    | tar xz -C "$src" --strip-components=1 || registry_hint "downloading Strimzi $ver's source" "github.com"
}

build_strimzi_operator() {
  local ver=$1 dest="$KO_CACHE/strimzi-operator-$1"
  done_marker "$dest" && { log "strimzi-operator $ver cached"; return; }
  local jdk; jdk=$(strimzi_jdk "$ver")
  [ -x "$jdk/bin/java" ] || die "Strimzi $ver builds with the JDK in $jdk, which is not installed"
  log "building Strimzi's cluster operator $ver from source with Maven (1-3 minutes, once)"
  local work; work=$(mktemp -d)
  mkdir "$work/src"
  strimzi_source "$ver" "$work/src"
  local rc=0
  # shellcheck disable=SC2046 # the flags are words
  (cd "$work/src" && JAVA_HOME=$jdk PATH="$jdk/bin:$PATH" MAVEN_OPTS=-Xmx2g \
    nice -n 10 mvn -B -Dstyle.color=never -Dmaven.repo.local="$KO_CACHE/strimzi-m2" -pl cluster-operator -am \
      clean package $(strimzi_maven_flags "$ver") \
      -Dmaven.test.skip=true -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dcheckstyle.skip \
      -Djacoco.skip=true -Dmdep.analyze.skip=true) >"$work/maven.log" 2>&1 || rc=$?
  local target="$work/src/cluster-operator/target"
  if [ $rc -ne 0 ] || [ ! -f "$target/cluster-operator-$ver.jar" ]; then
    local tail_lines; tail_lines=$(tail -40 "$work/maven.log")
    rm -rf "$work"
    die "building Strimzi $ver's cluster operator failed (mvn exit $rc); last lines of the Maven log:
$tail_lines"
  fi
  rm -rf "$dest"
  mkdir -p "$dest/crds"
  cp "$target/cluster-operator-$ver.jar" "$dest/"
  cp -r "$target/lib" "$dest/lib"
  cp "$work/src"/packaging/install/cluster-operator/04*-Crd-*.yaml "$dest/crds/"
  cp "$work/src/kafka-versions.yaml" "$dest/"
  echo "$jdk" >"$dest/JAVA_HOME"
  rm -rf "$work"
  touch "$dest/.complete"
  log "strimzi-operator $ver: $(ls "$dest/lib" | wc -l) jars, $(ls "$dest/crds" | wc -l) CRDs"
}

# A shared object for the operator's JVM (LD_PRELOAD) that moves its health server off the hard-coded port 8080 to
# $KO_BIND_8080_TO: a taken 8080 makes the operator exit, and two environments on one machine each run one.
build_bind_shim() {
  local dest="$KO_CACHE/bind-shim-1"
  done_marker "$dest" && { log "bind shim cached"; return; }
  mkdir -p "$dest"
  gcc -shared -fPIC -O2 -o "$dest/bind8080.so" "$here/env/bind8080.c" -ldl || die "compiling $here/env/bind8080.c failed"
  touch "$dest/.complete"
}


# ---- Flux's controllers, built from their Go modules ----------------------------------------------------------------
# `go install ...@version` cannot build them: their go.mod replaces the api module with ./api, a nested module that the
# module's zip leaves out. So: the module's source, the api module of the same version copied in as ./api, and
# `go build` there. The CRDs come from the same module (config/crd/bases), as the controllers' DEVELOPMENT.md
# installs them before `make run`.
build_flux() {
  local pending=() name
  for name in source-controller kustomize-controller; do
    if done_marker "$KO_CACHE/flux-$name-v$FLUX_VERSION"; then log "flux $name v$FLUX_VERSION cached"; else pending+=("$name"); fi
  done
  [ ${#pending[@]} -gt 0 ] || return 0
  local work; work=$(mktemp -d)
  (
    # Caches of their own, shared by the two builds and deleted after them: they fetch 3 GB of modules (cloud SDKs,
    # Helm, OCI signing) and leave 3 GB of compiled packages that nothing else uses.
    export GOTOOLCHAIN=$FLUX_GOTOOLCHAIN GOMODCACHE="$work/mod" GOCACHE="$work/build-cache"
    trap 'go clean -modcache >/dev/null 2>&1 || true' EXIT
    for name in "${pending[@]}"; do build_flux_controller "$name" "$work/$name"; done
  )
  rm -rf "$work"
}

build_flux_controller() {  # $1 = source-controller | kustomize-controller, $2 = an empty work directory
  local name=$1 work=$2 dest="$KO_CACHE/flux-$1-v$FLUX_VERSION"
  log "building Flux's $name v$FLUX_VERSION from github.com/fluxcd/$name (GOTOOLCHAIN=$FLUX_GOTOOLCHAIN; 5-15 minutes, once)"
  local dirs; dirs=$(go mod download -json "github.com/fluxcd/$name@v$FLUX_VERSION" \
    "github.com/fluxcd/$name/api@v$FLUX_VERSION") || registry_hint "go mod download $name" "the Go module proxy"
  local src api
  src=$(printf '%s\n' "$dirs" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' | grep -v '/api@')
  api=$(printf '%s\n' "$dirs" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' | grep '/api@')
  [ -d "$src" ] && [ -d "$api" ] || die "go mod download gave no source for $name v$FLUX_VERSION: $dirs"
  cp -r "$src" "$work" && cp -r "$api" "$work/api" && chmod -R u+w "$work"
  rm -rf "$dest" && mkdir -p "$dest/crds"
  (cd "$work" && nice -n 10 go build -trimpath -ldflags "-s -w" -o "$dest/$name" .) \
    || die "go build of $name v$FLUX_VERSION failed (log above)"
  cp "$work"/config/crd/bases/*.yaml "$dest/crds/"
  echo "$FLUX_VERSION" >"$dest/VERSION"
  touch "$dest/.complete"
  log "flux $name v$FLUX_VERSION: $(du -h "$dest/$name" | cut -f1), $(ls "$dest/crds" | wc -l) CRDs"
}

write_env() {
  local env="$KO_CACHE/env.sh"
  {
    echo "export TEST_ASSET_ETCD=$KO_CACHE/etcd-v$ETCD_VERSION/etcd"
    echo "export TEST_ASSET_KUBE_APISERVER=$KO_CACHE/kube-apiserver-v$K8S_VERSION/kube-apiserver"
    echo "export KAFKA_LIB=$KO_CACHE/kafka-$KAFKA_VERSION/lib"
    local v; if v=$(pyspark_version 2>/dev/null); then echo "export SPARK_KAFKA_JARS=$KO_CACHE/spark-kafka-$v"; fi
    # Every built release (this run's or an earlier one's): STRIMZI_OPERATOR_<ver with underscores>=<dir>.
    local d
    for d in "$KO_CACHE"/strimzi-operator-*/; do
      [ -f "$d/.complete" ] || continue
      v=${d%/}; v=${v##*/strimzi-operator-}
      echo "export STRIMZI_OPERATOR_${v//./_}=${d%/}"
    done
    [ ! -f "$KO_CACHE/bind-shim-1/.complete" ] || echo "export KO_BIND_SHIM=$KO_CACHE/bind-shim-1/bind8080.so"
    # Flux's controllers of $FLUX_VERSION (binary and crds/ in each directory).
    d="$KO_CACHE/flux-source-controller-v$FLUX_VERSION"
    [ ! -f "$d/.complete" ] || echo "export FLUX_SOURCE_CONTROLLER=$d"
    d="$KO_CACHE/flux-kustomize-controller-v$FLUX_VERSION"
    [ ! -f "$d/.complete" ] || echo "export FLUX_KUSTOMIZE_CONTROLLER=$d"
  } >"$env"
  echo "$env"
}

pieces=("$@")
[ ${#pieces[@]} -gt 0 ] || pieces=(etcd kube-apiserver kafka spark-kafka strimzi-operator flux)
for p in "${pieces[@]}"; do
  case $p in
    etcd) build_etcd ;;
    kube-apiserver) build_kube_apiserver ;;
    kafka) fetch_kafka ;;
    spark-kafka) fetch_spark_kafka ;;
    strimzi-operator) build_bind_shim; for v in $STRIMZI_OPERATOR_VERSIONS; do build_strimzi_operator "$v"; done ;;
    flux) build_flux ;;
    cds) ;;  # after env.sh, below
    *) die "unknown piece '$p' (choose from: etcd kube-apiserver kafka spark-kafka strimzi-operator flux cds)" ;;
  esac
done
write_env
# The Kafka JVMs' class-data sharing archives (tests/env/cds.py): built once per JDK and Kafka, from the jars just
# provisioned. Without them every broker and Connect worker start still works, at about twice the CPU: say so loudly.
if printf '%s\n' "${pieces[@]}" | grep -qx 'kafka\|cds'; then
  (cd "$here/.." && "$PYTHON" -m tests.env cds) \
    || log "WARNING: the class-data sharing archives were not built (output above): the suite runs without them, slower"
fi
