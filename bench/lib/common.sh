#!/usr/bin/env bash
# Sourced by bench/run and bench/wan: the data, the emulated Mac host (host 1: canned mode, macOS-only PATH, zstd in
# its Homebrew folder) and a second sshd on the same state whose PATH also has /usr/bin (host 2: rsync, scp's
# sftp-server, date), the timing helpers (measure, measure_pair), the table's rows, and the workloads both sides
# run. Everything lives in one tmpfs folder, removed at exit (BENCH_KEEP=1 keeps it).
# shellcheck disable=SC2034
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=${BENCH_RUNS:-5}
bin=${BENCH_BIN:-$here/.build/release} # BENCH_BIN=.build/debug: a quick look without `make release`
bin=$(cd "$bin" 2>/dev/null && pwd || echo "$bin")
for tool in pipe pipe-bench pipe-mac-emulator; do
    [ -x "$bin/$tool" ] || { echo "bench: $bin/$tool is missing: run 'make release' (make bench does)" >&2; exit 2; }
done
if ! command -v rsync >/dev/null; then
    echo "bench: installing rsync for the OpenSSH baseline"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q rsync >/dev/null
fi
[ -d /dev/shm ] || { echo "bench: needs a tmpfs at /dev/shm" >&2; exit 2; }

tmp=$(mktemp -d /dev/shm/pipe-bench.XXXXXX)
chmod 755 "$tmp"
second_pid=""
relay_pids=()
cleanup() {
    [ -n "$second_pid" ] && kill "$second_pid" 2>/dev/null || true
    local relay
    for relay in "${relay_pids[@]}"; do kill "$relay" 2>/dev/null || true; done
    "$here/scripts/mac-host" down --state "$tmp/mac" >/dev/null 2>&1 || true
    if [ -n "${BENCH_KEEP:-}" ]; then echo "bench: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

log() { printf '%s\n' "$*" >&2; }

# ---------------------------------------------------------------------------------------------------------------
log "bench: generating data into $tmp/data"
# D (1 GB, for memory) only where the sourcing script sets bench_big.
"$bin/pipe-bench" gen "$tmp/data" ${bench_big:+--big} >"$tmp/MANIFEST.txt"
chmod -R a+rX "$tmp/data"
A=$tmp/data/A B=$tmp/data/B C=$tmp/data/C D=$tmp/data/D

log "bench: starting the emulated Mac host (canned mode, zstd from Homebrew) and a second sshd for the OpenSSH baselines"
"$here/scripts/mac-host" up --state "$tmp/mac" --name mac-bench --mode canned --homebrew zstd \
    --emulator "$bin/pipe-mac-emulator" >"$tmp/host.facts"
port=$(sed -n 's/^port=//p' "$tmp/host.facts")
user=$(sed -n 's/^user=//p' "$tmp/host.facts")
key=$(sed -n 's/^identity=//p' "$tmp/host.facts")
known=$(sed -n 's/^known_hosts=//p' "$tmp/host.facts")
port2=$((port + 1))
while (exec 3<>"/dev/tcp/127.0.0.1/$port2") 2>/dev/null; do port2=$((port2 + 1)); done
sed -e "s/^Port .*/Port $port2/" -e "s|^PidFile .*|PidFile $tmp/mac/sshd2.pid|" \
    -e "s|^SetEnv PATH=\([^ ]*\)|SetEnv PATH=\1:/usr/bin:/bin|" "$tmp/mac/sshd_config" >"$tmp/mac/sshd_config2"
echo "Subsystem sftp /usr/lib/openssh/sftp-server" >>"$tmp/mac/sshd_config2"
/usr/sbin/sshd -t -f "$tmp/mac/sshd_config2"
setsid /usr/sbin/sshd -D -e -f "$tmp/mac/sshd_config2" >>"$tmp/mac/sshd2.log" 2>&1 </dev/null &
second_pid=$!
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port2") 2>/dev/null && break; sleep 0.05; done
sed "s/\]:$port /]:$port2 /" "$known" >"$tmp/mac/known_hosts2"
cat "$known" >>"$tmp/mac/known_hosts2"

work=$tmp/host                    # the host's work folder (cache and run folders), on tmpfs
# What Pipe remembers between its processes (the manifest it last sent to each host cache, the digests of local
# files): on tmpfs too, like everything this script writes.
export PIPE_SYNC_STATE=$tmp/sync-state
local=$tmp/local                  # where pull-backs land
mkdir -p "$work" "$local"
chown "$user" "$work" 2>/dev/null || true

hostargs=(--port "$port" --user "$user" --identity "$key" --known-hosts "$known" --work-dir "$work")
sshbase=(-F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes -o ControlPath=none -i "$key")
ssh1=(ssh "${sshbase[@]}" -o UserKnownHostsFile="$known" -p "$port" "$user@127.0.0.1")
fast=(-c aes128-gcm@openssh.com -o KexAlgorithms=curve25519-sha256)
rsh2="ssh ${sshbase[*]} -o UserKnownHostsFile=$tmp/mac/known_hosts2 -c aes128-gcm@openssh.com -o KexAlgorithms=curve25519-sha256 -p $port2"
ssh2=(ssh "${sshbase[@]}" -o UserKnownHostsFile="$tmp/mac/known_hosts2" -p "$port2" "$user@127.0.0.1")
scpbase=(scp -q -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes -o ControlPath=none -i "$key"
    -o UserKnownHostsFile="$tmp/mac/known_hosts2" -c aes128-gcm@openssh.com -o KexAlgorithms=curve25519-sha256 -P "$port2")

# ---------------------------------------------------------------------------------------------------------------
# measure NAME PREPARE COMMAND…: PREPARE (a function name or '-') runs untimed before each run with the run number;
# COMMAND runs once to warm up, then $runs times; the median seconds go to $results/NAME. `{n}` in COMMAND is the
# run number.
results=$tmp/results
mkdir -p "$results"
now() { date +%s%N; }
measure() {
    local name=$1 prepare=$2
    shift 2
    local times=() i
    for i in $(seq 0 "$runs"); do
        [ "$prepare" = - ] || "$prepare" "$name-$i"
        local command=("${@//\{n\}/$name-$i}")
        local started ended
        started=$(now)
        "${command[@]}" >"$tmp/last.out" 2>"$tmp/last.err" || {
            log "bench: '$name' failed: ${command[*]}"
            cat "$tmp/last.err" >&2
            exit 2
        }
        ended=$(now)
        [ "$i" -eq 0 ] || times+=($(((ended - started) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f\n", m / 1e6 }' \
        >"$results/$name"
    log "  $name: $(cat "$results/$name") s"
}
# measure_pair NAME1 PREPARE1 RUN1 NAME2 PREPARE2 RUN2 [FIELD]: like measure, for two figures compared with each
# other, taken in turns (1, 2, 1, 2, …) so that both see the same load on a shared machine; RUN1/RUN2 are functions
# given the run's id. With FIELD, each run of RUN1 is timed less the seconds its output gives as FIELD= (the clone
# into the run folder), and the median of FIELD goes to $results/NAME1-FIELD.
measure_pair() {
    local names=("$1" "$4") prepares=("$2" "$5") runners=("$3" "$6") exclude=${7:-}
    local times0=() times1=() excluded=() i side
    for i in $(seq 0 "$runs"); do
        for side in 0 1; do
            local id="${names[$side]}-$i"
            [ "${prepares[$side]}" = - ] || "${prepares[$side]}" "$id"
            local started ended
            started=$(now)
            "${runners[$side]}" "$id" >"$tmp/last.out" 2>"$tmp/last.err" || {
                log "bench: '${names[$side]}' failed"
                cat "$tmp/last.err" >&2
                exit 2
            }
            ended=$(now)
            [ "$i" -eq 0 ] && continue
            local micros=$(((ended - started) / 1000))
            if [ "$side" -eq 0 ] && [ -n "$exclude" ]; then
                local part
                part=$(awk -v s="$(field "$exclude" "$tmp/last.out")" 'BEGIN { printf "%d", s * 1e6 }')
                excluded+=("$part")
                micros=$((micros - part))
            fi
            if [ "$side" -eq 0 ]; then times0+=("$micros"); else times1+=("$micros"); fi
        done
    done
    for side in 0 1; do
        local list
        if [ "$side" -eq 0 ]; then list=("${times0[@]}"); else list=("${times1[@]}"); fi
        printf '%s\n' "${list[@]}" | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f\n", m / 1e6 }' \
            >"$results/${names[$side]}"
        log "  ${names[$side]}: $(cat "$results/${names[$side]}") s"
    done
    if [ -n "$exclude" ]; then
        printf '%s\n' "${excluded[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%.4f\n", v[int((NR + 1) / 2)] / 1e6 }' \
            >"$results/${names[0]}-$exclude"
    fi
}
value() { cat "$results/$1"; }
# median of a key=value field printed by pipe-bench over the measured runs is not kept; for fields, run once more.
field() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" "$2" | head -n 1; }

rows=()
failed=0
# row LABEL PIPE BASELINE RATIO TARGET-OP TARGET [NOTE]: RATIO is computed by the caller (time or throughput).
row() {
    local label=$1 pipe=$2 base=$3 ratio=$4 op=$5 target=$6 verdict
    if awk -v r="$ratio" -v t="$target" -v op="$op" 'BEGIN { exit !((op == "<=") ? (r <= t) : (r >= t)) }'; then
        verdict=ok
    else
        verdict=MISS
        failed=1
    fi
    rows+=("$(printf '%-58s %9s %9s %7s %9s  %s' "$label" "$pipe" "$base" "$ratio" "$op $target" "$verdict")")
}
info() { rows+=("$(printf '%-58s %9s %9s %7s %9s  %s' "$1" "$2" "${3:--}" "${4:--}" "" "${5:-}")"); }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a - b }'; }

# ---------------------------------------------------------------------------------------------------------------
# Workloads, each given the run id ($1).
clear_run() { "${ssh1[@]}" "rm -rf $work/runs $work/cache $work/tar" >/dev/null; }
upload_pipe() { "$bin/pipe-bench" sync "${hostargs[@]}" --dir "$A" --key "full" --to "$work/runs/$1/workspace"; }
upload_tar_ssh() { tar -cf - -C "$A" . | "${ssh1[@]}" "${fast[@]}" "mkdir -p $work/tar/$1 && tar -xf - -C $work/tar/$1"; }
reset_pipe() { "$bin/pipe-bench" sync "${hostargs[@]}" --dir "$A" --key inc --to "$work/runs/reset-$1/workspace" >/dev/null; }
incremental_pipe() { "$bin/pipe-bench" sync "${hostargs[@]}" --dir "$C" --key inc --to "$work/runs/$1/workspace"; }
reset_rsync() { rsync -a --delete -e "$rsh2" "$A/" "$user@127.0.0.1:$work/rsync/"; }
fresh_local() { rm -rf "$local"; mkdir -p "$local/$1"; }
pull_pipe() { "$bin/pipe-bench" download "${hostargs[@]}" --remote "$B" --into "$local/$1"; }
pull_ssh_tar() { "${ssh1[@]}" "${fast[@]}" "tar -cf - -C $tmp/data B" | tar -xf - -C "$local/$1"; }
pipeline_pipe() { (cd "$project" && CI=true "$bin/pipe" run pipelines/app-intents.yml >/dev/null); }
incremental_rsync() { rsync -a -e "$rsh2" "$C/" "$user@127.0.0.1:$work/rsync/"; }

# The app-intents project Pipe runs and the seeds' script drives, in a git repository of its own.
project=$tmp/project
setup_project() {
    mkdir -p "$project/pipelines" "$project/examples" "$project/.pipe"
    cp "$here/pipelines/app-intents.yml" "$project/pipelines/"
    # For Pipe's own cost of a layer: the same pipeline with its layers one after another and each building on its own,
    # so a second layer adds exactly one more `xcodebuild test` (by default they run at once and share one build, and
    # what a second layer adds to the run's wall time says nothing of Pipe's cost).
    sed -e 's/^layers:$/concurrency: 1\n\nlayers:/' -e 's/^    plugin: xcodebuild-test$/&\n    share-build: false/' \
        "$here/pipelines/app-intents.yml" >"$project/pipelines/app-intents-serial.yml"
    grep -q '^concurrency: 1$' "$project/pipelines/app-intents-serial.yml" &&
        [ "$(grep -c '^    share-build: false$' "$project/pipelines/app-intents-serial.yml")" -eq 2 ] ||
        { echo "bench: could not make app-intents-serial.yml from pipelines/app-intents.yml" >&2; exit 2; }
    cp -R "$here/examples/reader-app" "$project/examples/reader-app"
    rm -rf "$project/examples/reader-app/.build"
    write_project_hosts
    (cd "$project" && git init -q -b main && git -c user.email=bench@pipe.test -c user.name=bench add -A &&
        git -c user.email=bench@pipe.test -c user.name=bench commit -q -m bench)
}
# The project's hosts file: host 1, on loopback or (given a port and known-hosts file) through a relay.
write_project_hosts() {
    cat >"$project/.pipe/hosts.yml" <<EOF
hosts:
  - name: mac-bench
    address: 127.0.0.1
    port: ${1:-$port}
    user: $user
    identity-file: $key
    known-hosts: ${2:-$known}
    work-dir: $work
EOF
}
udid=90052AC6-D47D-4B2A-840D-6B5B081260C6
seeds_layer() { # the seeds' script for one layer, run on the host through ssh; prints the bundle's path
    "${ssh2[@]}" "${fast[@]}" "cd $work/seeds/ws && SIM_UDID=$udid sh -c '
mkdir -p artifacts
test -n \"\${SIM_UDID:-}\" || { printf \"%s\n\" \"SIM_UDID is required\" >&2; exit 1; }
result=\"\$PWD/artifacts/app-intents-\$(date +%Y%m%d-%H%M%S)-\$\$.xcresult\"
xcodebuild test -scheme Reader -destination \"platform=iOS Simulator,id=\$SIM_UDID\" -resultBundlePath \"\$result\" -only-testing:$1 >&2
echo \"\$result\"'"
}
seeds_run() {
    local out=$local/seeds-$1
    mkdir -p "$out"
    "${ssh2[@]}" "${fast[@]}" "rm -rf $work/seeds; xcrun simctl list devices available >/dev/null"
    tar -cf - -C "$project/examples/reader-app" . | "${ssh2[@]}" "${fast[@]}" "mkdir -p $work/seeds/ws && tar -xf - -C $work/seeds/ws"
    for layer in ReaderTests/ReadingIDTests ReaderTests/CheckReadingIDIntentTests; do
        local bundle
        bundle=$(seeds_layer "$layer")
        "${scpbase[@]}" -r "$user@127.0.0.1:$bundle" "$out/"
    done
}

# print_table TITLE: the rows so far, under TITLE and the column heads.
print_table() {
    echo
    echo "$1"
    printf '%-58s %9s %9s %7s %9s  %s\n' "figure" "Pipe" "OpenSSH" "ratio" "target" ""
    printf '%s\n' "${rows[@]}"
}
