#!/usr/bin/env bash
# test/e2e/e2e_slurm.sh — shb as a Slurm job array on a real single-node Slurm
# cluster that this suite starts and tears down: Debian's slurm-wlm (22.05)
# and munge, every daemon in the foreground and everything it writes (munge's
# key, socket, pid, seed and log; slurm.conf, state, spool, logs) under the
# suite's temp dir, nothing under /etc, /run or /var.
#
#   SHB=./shb SHB_FLAVOUR=musl bash test/e2e/e2e_slurm.sh
#   SHB=build/asan/shb SHB_FLAVOUR=asan bash test/e2e/e2e_slurm.sh
#
# The cluster: munged -F with its own socket and key; slurmctld -D and
# slurmd -D on ports from pick_port, a unique ClusterName, one node (this
# machine's `hostname -s`, CPUs from nproc, reached on 127.0.0.1), no
# cgroups (proctrack/linuxproc, task/none), SlurmUser and SlurmdUser the
# user running the suite (root in CI; any user will do: slurmd then runs
# jobs as that user only), munge authentication on (both daemons listen on
# every address). The one partition lets 4 jobs share a CPU
# (OverSubscribe=FORCE:4), so that the array's 4 tasks run at once on a
# 2-CPU node, as they would on 4 machines.
#
# The job: docs/shards.md's Slurm array script (section "Slurm: a job
# array"), `sbatch --wait` with #SBATCH --array=0-3, each task
# `shb --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT -n 4000` from
# one --start-at a few seconds ahead, its JSON report in shard-I.json,
# against one nginx (test/servers/nginx-rate.conf.in, a log line per request).
# Checked: nginx saw exactly 4000 requests; the reports are shards 0..3 of
# 4, 1000 requests each, their windows starting within 20 ms of the
# --start-at; `shb merge -j` over them is one report of 4000 requests,
# shards 0-3 of 4, over the union of their windows, with the percentiles
# test/vectors/hdr_ref.py works out from the four histograms; `shb merge` prints it
# as text; the teardown leaves no daemon and no process of the cluster's
# behind.
#
# Missing slurm or munge is a FAIL, not a SKIP (scripts/deps.sh installs
# them). A cluster's up, job and down take about 10 s; run.sh runs the suite
# against both builds. Same conventions as test/e2e/e2e.sh.
# jq programs are single-quoted on purpose ($ is jq's, not the shell's).
# shellcheck disable=SC2016
# shellcheck source=test/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
e2e_begin e2e-slurm

e2e_preconditions nginx jq python3 munged mungekey munge slurmctld slurmd sbatch sinfo squeue scancel

# --- the cluster -----------------------------------------------------------------
S=$T/slurm # the cluster's files
export SLURM_CONF=$S/slurm.conf # for sinfo, squeue, sbatch and scancel
MUNGE_PID="" CTLD_PID="" SLURMD_PID=""
NODE=$(hostname -s)

# The daemons and the job (sbatch exports its environment to it) run with
# SHB_SLURM_CLUSTER=$S in their environment, and so does every process they
# start (slurmstepd, the job script, its shards); this shell does not.
# slurm_procs: the pids of those processes, whoever their parent now is.
MARK="SHB_SLURM_CLUSTER=$S"
slurm_procs() {
    local f
    for f in /proc/[0-9]*/environ; do
        grep -qzx "$MARK" "$f" 2>/dev/null && { f=${f#/proc/}; echo "${f%/environ}"; }
    done
}

# stop_pid PID SECONDS: TERM, then KILL after SECONDS (lib.sh's reap).
stop_pid() {
    [ -n "$1" ] || return 0
    kill -TERM "$1" 2>/dev/null || return 0
    reap "$1" "$2"
}

# slurm_down: cancels every job (slurmd then ends their steps), waits up to
# 5 s for the queue to empty, stops slurmd, slurmctld and munged (slurmd
# takes about 2 s), and kills whatever of the cluster's is still running.
# Runs on every exit, the suite's own end included; a second call does
# nothing.
slurm_down() {
    local i pid
    if [ -n "$CTLD_PID" ] && kill -0 "$CTLD_PID" 2>/dev/null; then
        timeout 5 scancel --user="$(id -un)" >/dev/null 2>&1 || true
        for ((i = 0; i < 50; i++)); do
            [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    kill -TERM $SLURMD_PID $CTLD_PID 2>/dev/null
    stop_pid "$SLURMD_PID" 8
    stop_pid "$CTLD_PID" 8
    stop_pid "$MUNGE_PID" 5
    SLURMD_PID="" CTLD_PID="" MUNGE_PID=""
    for pid in $(slurm_procs); do
        kill -KILL "$pid" 2>/dev/null || true
    done
}
trap 'slurm_down; e2e_cleanup' EXIT

# slurm_logs: the end of the daemons' logs, for a failure.
slurm_logs() {
    local f
    for f in "$S"/munge/munged.log "$S"/log/*; do
        [ -s "$f" ] || continue
        echo "  --- $f ---"
        tail -n 8 "$f" | sed 's/^/  /'
    done
}

# munge_up: munged -F with its own key, socket, pid, seed and log under
# $S/munge. munged refuses a socket directory that others may write to,
# or whose parents they cannot search (the temp dir is made 755).
munge_up() {
    local i
    mkdir -p "$S/munge"
    chmod 755 "$T" "$S" "$S/munge"
    mungekey --create --keyfile="$S/munge/munge.key" >"$S/munge/mungekey.out" 2>&1 || return 1
    env "$MARK" munged --foreground --socket="$S/munge/munge.sock" --key-file="$S/munge/munge.key" \
        --pid-file="$S/munge/munged.pid" --seed-file="$S/munge/munged.seed" \
        --log-file="$S/munge/munged.log" >"$S/munge/out" 2>&1 &
    MUNGE_PID=$!
    for ((i = 0; i < 200; i++)); do
        if [ -S "$S/munge/munge.sock" ] &&
            timeout 5 munge -n -S "$S/munge/munge.sock" >/dev/null 2>&1; then
            return 0
        fi
        kill -0 "$MUNGE_PID" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# slurm_conf CTLD_PORT SLURMD_PORT: writes $SLURM_CONF.
slurm_conf() {
    cat >"$SLURM_CONF" <<EOF
# written by test/e2e/e2e_slurm.sh; the cluster lives in $S
ClusterName=shb${$}x$RANDOM
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/backfill
# Start a batch job when it is submitted, not up to 3 s later (the default
# batch_sched_delay), and keep finished jobs 5 s: sbatch --wait then polls
# every 2 s (it waits 2, 8, then 32 s between polls while that is under
# half of MinJobAge, 300 s by default).
SchedulerParameters=batch_sched_delay=0
MinJobAge=5
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=shb Nodes=$NODE Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:4
EOF
}

# slurm_up: slurmctld -D and slurmd -D on fresh ports, then waits (20 s at
# most) for sinfo to call the node idle. A daemon that dies (a port taken
# since pick_port looked) is a retry on other ports, three attempts.
slurm_up() {
    local attempt i p_ctld p_slurmd state
    for attempt in 1 2 3; do
        rm -rf "$S/state" "$S/spool" "$S/log"
        mkdir -p "$S/state" "$S/spool" "$S/log" # slurmd does not make its spool dir
        pick_port p_ctld || return 1
        pick_port p_slurmd || return 1
        slurm_conf "$p_ctld" "$p_slurmd"
        env "$MARK" slurmctld -D -f "$SLURM_CONF" >"$S/log/slurmctld.out" 2>&1 &
        CTLD_PID=$!
        env "$MARK" slurmd -D -N "$NODE" -f "$SLURM_CONF" >"$S/log/slurmd.out" 2>&1 &
        SLURMD_PID=$!
        for ((i = 0; i < 100; i++)); do
            state=$(timeout 5 sinfo -h -n "$NODE" -o %t 2>/dev/null)
            [ "$state" = idle ] && return 0
            if ! kill -0 "$CTLD_PID" 2>/dev/null || ! kill -0 "$SLURMD_PID" 2>/dev/null; then
                break
            fi
            sleep 0.2
        done
        echo "slurm_up: attempt $attempt: the node is '${state:-?}' (ports $p_ctld, $p_slurmd)" >&2
        slurm_logs >&2
        stop_pid "$SLURMD_PID" 8
        stop_pid "$CTLD_PID" 8
        SLURMD_PID="" CTLD_PID=""
    done
    return 1
}

begin "a single-node Slurm cluster comes up under the temp dir (munged, slurmctld, slurmd): node $NODE idle"
LAST_CMD="munged, slurmctld -D, slurmd -D; sinfo"
t0=$(now_ms)
if ! munge_up; then
    want "munged did not come up"
elif ! slurm_up; then
    want "the node did not become idle"
fi
SHB_MS=$(($(now_ms) - t0))
e2e_diag_extra() { slurm_logs; }
finish
[ -z "$WHY" ] || exit 1
echo "  the cluster came up in $SHB_MS ms"

start_or_die "nginx (test/servers/nginx-rate.conf.in)" start_nginx "$LIB_ROOT/test/servers/nginx-rate.conf.in" nginx-slurm
URL="http://127.0.0.1:$NGINX_PORT/"
H1_LOG="$NGINX_DIR/h1.log"

# --- the job array ---------------------------------------------------------------
# docs/shards.md's script, as it is there but for the target, the counts,
# timeout(1) (a shard that hangs ends; Slurm's own limit, --time, is in
# minutes) and --exclusive (one node here). SHB, START_AT and URL come
# from sbatch's environment (its default --export=ALL; --export=ALL,VAR=...
# would have slurmd fetch the user's login environment first, 2 s here,
# before each task).
JOB=$T/job
mkdir -p "$JOB"
cat >"$JOB/shb-array.sh" <<'EOF'
#!/bin/bash
#SBATCH --job-name=shb
#SBATCH --array=0-3              # 4 shards: tasks 0..3
#SBATCH --ntasks=1
#SBATCH --time=2                 # minutes: the wait for START_AT, then the run
#SBATCH --output=shb-%a.err      # stderr: empty unless something went wrong
exec timeout -k 5 60 "$SHB" --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" --start-at "$START_AT" \
    -n 4000 -c 8 -t 1 -j "$URL" >"shard-$SLURM_ARRAY_TASK_ID.json"
EOF

begin "sbatch --array=0-3 --wait: 4 shards of -n 4000 at once from one --start-at: 4000 at nginx, shards 0..3 of 4, 1000 each, windows within 20 ms"
: >"$H1_LOG"
# A few seconds ahead: the tasks start within half a second here, within
# that even on a loaded machine; a task that started later would say
# "already past" and fail.
at=$(awk -v t="$(date +%s.%N)" 'BEGIN { printf "%.3f", t + 3 }')
LAST_CMD="SHB=$SHB START_AT=$at URL=$URL sbatch --wait shb-array.sh"
t0=$(now_ms)
(cd "$JOB" && exec env "$MARK" SHB="$SHB" START_AT="$at" URL="$URL" timeout -k 5 90 sbatch --wait --quiet shb-array.sh) >"$OUT" 2>"$ERR" &
SHB_CHILD=$!
wait "$SHB_CHILD"
SHB_RC=$?
SHB_CHILD=""
SHB_MS=$(($(now_ms) - t0))
[ "$SHB_RC" -eq 0 ] || want "sbatch --wait: exit status $SHB_RC: $(head -c 300 "$ERR")"
for i in 0 1 2 3; do
    [ -s "$JOB/shard-$i.json" ] || want "no report from task $i"
    [ -s "$JOB/shb-$i.err" ] && want "task $i wrote to stderr: $(head -c 300 "$JOB/shb-$i.err")"
    schema_collect "$JOB/shard-$i.json" "sbatch task $i: shb --shard $i/4 -j"
done
cat "$JOB"/shard-[0-3].json >"$T/shards.json" 2>/dev/null
# E and R are read by jq_batch through namerefs.
# shellcheck disable=SC2034
E=('length == 4 and [.[].shard] == [range(4) | {index: ., count: 4}]'
    '[.[].requests.total] == [1000, 1000, 1000, 1000] and ([.[].requests.total] | add) == 4000'
    'all(.requests.ok == 1000 and .requests.errors == 0)'
    "all((.startTime - $at | fabs) < 0.02 and .endTime > .startTime)")
# shellcheck disable=SC2034
R=('[.[].shard]' '[.[].requests]' '[.[].requests]' '[.[] | {startTime, endTime}]')
jq_batch "$T/shards.json" -s "" E R "the shards' reports: "
got=$(lines_settled "$H1_LOG")
[ "$got" = 4000 ] || want "nginx got $got requests, expected exactly 4000"
e2e_diag_extra() {
    for i in 0 1 2 3; do
        [ -s "$JOB/shb-$i.err" ] && head -n 5 "$JOB/shb-$i.err" | sed "s/^/  task $i: /"
    done
    slurm_logs
}
finish
echo "  sbatch --wait took $SHB_MS ms (start at +3 s)"
e2e_diag_extra() { :; }

# --- shb merge ----------------------------------------------------------------
begin "shb merge -j shard*.json: 4000 requests, all ok, shards 0-3 of 4, the union window, percentiles those of the four histograms added"
shb merge -j --histograms "$JOB"/shard-[0-3].json
json_run_ok HTTP/1.1
jx '.requests == {total: 4000, ok: 4000, errors: 0, connectErrors: 0, non2xx: 0} and .statusCodes == {"200": 4000}' '{requests, statusCodes}'
jx '.merged == {reports: 4, shardCount: 4, shards: [0, 1, 2, 3], complete: true, shardTwice: false}' '.merged'
# The window runs from the earliest start to the latest end, the rate over
# it (a jq number is a double: to the microsecond, here).
win=$(jq -cs '[([.[].startTime] | min), ([.[].endTime] | max)]' "$T/shards.json" 2>/dev/null)
jx "$win as [\$s, \$e] | .startTime == \$s and .endTime == \$e and ($(near .requestsPerSec '4000 / ($e - $s)' 0.01))" \
    "{startTime, endTime, requestsPerSec, shards: $win}"
e2e_flush_report
# The percentiles, min, max and mean: test/vectors/hdr_ref.py decodes the four
# histograms itself (Python's base64 and zlib) and adds them.
got=$(python3 test/vectors/hdr_ref.py latencySeconds "$OUT" "$JOB"/shard-[0-3].json 2>&1) || want "latencySeconds against test/vectors/hdr_ref.py: $got"
finish

begin "shb merge shard*.json: the text report of the whole run (Merged: 4 reports: shards 0-3 of 4)"
shb merge "$JOB"/shard-[0-3].json
[ "$SHB_RC" -eq 0 ] || want "exit status $SHB_RC"
no_sanitizer_report
grep -qx 'Merged:       4 reports: shards 0-3 of 4, the whole run' "$OUT" || want "no Merged line: $(grep Merged "$OUT")"
grep -q '^Requests:     4000 (4000 ok, 0 errors, of which 0 connect) in ' "$OUT" || want "Requests line: $(grep Requests: "$OUT")"
grep -qx '  \[200\] 4000' "$OUT" || want "no '[200] 4000' status line"
finish

# --- down ----------------------------------------------------------------------
begin "teardown: slurmd, slurmctld and munged gone, no process of the cluster left"
LAST_CMD="scancel; TERM slurmd, slurmctld, munged"
pids="$SLURMD_PID $CTLD_PID $MUNGE_PID"
t0=$(now_ms)
slurm_down
SHB_MS=$(($(now_ms) - t0))
for pid in $pids; do
    kill -0 "$pid" 2>/dev/null && want "pid $pid still running"
done
left=$(slurm_procs)
[ -z "$left" ] || want "still running with this cluster's SLURM_CONF: $left"
finish

[ "$FAILS" -eq 0 ]
