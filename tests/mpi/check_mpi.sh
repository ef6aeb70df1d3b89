#!/bin/sh
# `mpirun -np 3 pinbench check --mpi` on this machine: every rank says what it checked (here, with
# no GPU, that it had none), and rank 0 writes a fleet record that says the same and replays it.
# Usage: check_mpi.sh MPIEXEC PINBENCH OUTDIR
set -u
mpiexec=$1 pinbench=$2 out=$3
mkdir -p "$out"
rm -f "$out/fleet.json" "$out/fleet.html"
# CI runs as root; the sandbox may have fewer cores than ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$mpiexec" --oversubscribe -np 3 "$pinbench" check --mpi --json "$out/fleet.json" \
  --html "$out/fleet.html" > "$out/stdout.txt" 2> "$out/stderr.txt"
rc=$?
cat "$out/stdout.txt"
fail() { echo "FAILED: $1"; cat "$out/stderr.txt"; exit 1; }
# 0: every GPU passed; 1: something flagged (no GPU here is flagged). Not 2, 3 or 4.
[ "$rc" -le 1 ] || fail "mpirun exited $rc"
[ -s "$out/fleet.json" ] || fail "rank 0 wrote no fleet record"
[ -s "$out/fleet.html" ] || fail "rank 0 wrote no HTML report"
for r in 0 1 2; do
  grep -q "^rank $r on " "$out/stdout.txt" || fail "rank $r said nothing"
done
grep -q '"experiment": "fleet"' "$out/fleet.json" || fail "the record is not a fleet"
n=$(grep -c '"source": "rank [0-9]*"' "$out/fleet.json")
[ "$n" -eq 3 ] || fail "the fleet holds $n hosts' checks, not 3"
if grep -q "no usable GPU" "$out/stdout.txt"; then
  grep -q '"no_gpu"' "$out/fleet.json" || fail "no GPU here, and the fleet record does not say so"
fi
"$pinbench" fleet --replay "$out/fleet.json" > "$out/replay.txt"
[ $? -le 1 ] || fail "the fleet record does not replay"
grep -q "pinbench fleet" "$out/replay.txt" || fail "the replay printed no fleet"
echo "check --mpi: 3 ranks, fleet record and report written"
