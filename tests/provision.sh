#!/usr/bin/env bash
# Provision the real components the tests run against, into a cache keyed by version.
#
#   bash tests/provision.sh            # everything (idempotent: cached pieces are reused)
#   bash tests/provision.sh etcd kafka # only some pieces
#
# Pieces: etcd, kube-apiserver, kafka, spark-kafka. Each lands in $KO_CACHE/<piece>-<version>/ and is only
# built or fetched when that directory lacks its ".complete" marker, so an interrupted run is redone cleanly.
# Nothing is written into the git work tree. The last line printed is the env file to source.
set -euo pipefail

KO_CACHE=${KO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-offsets-testbin}
K8S_VERSION=${K8S_VERSION:-1.32.13}
ETCD_VERSION=${ETCD_VERSION:-3.5.21}
KAFKA_VERSION=${KAFKA_VERSION:-4.3.1}
LOG4J_VERSION=${LOG4J_VERSION:-2.25.1}
DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1

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
  # Not `| head -1`: head closes the pipe after one line and, under pipefail, etcd's SIGPIPE (exit 141) would fail
  # the whole provisioning by chance, depending on whether etcd finished writing first.
  "$dest/etcd" --version | sed -n 1p >&2
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

write_env() {
  local env="$KO_CACHE/env.sh"
  {
    echo "export TEST_ASSET_ETCD=$KO_CACHE/etcd-v$ETCD_VERSION/etcd"
    echo "export TEST_ASSET_KUBE_APISERVER=$KO_CACHE/kube-apiserver-v$K8S_VERSION/kube-apiserver"
    echo "export KAFKA_LIB=$KO_CACHE/kafka-$KAFKA_VERSION/lib"
    local v; if v=$(pyspark_version 2>/dev/null); then echo "export SPARK_KAFKA_JARS=$KO_CACHE/spark-kafka-$v"; fi
  } >"$env"
  echo "$env"
}

pieces=("$@")
[ ${#pieces[@]} -gt 0 ] || pieces=(etcd kube-apiserver kafka spark-kafka)
for p in "${pieces[@]}"; do
  case $p in
    etcd) build_etcd ;;
    kube-apiserver) build_kube_apiserver ;;
    kafka) fetch_kafka ;;
    spark-kafka) fetch_spark_kafka ;;
    *) die "unknown piece '$p' (choose from: etcd kube-apiserver kafka spark-kafka)" ;;
  esac
done
write_env
