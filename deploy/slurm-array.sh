#!/usr/bin/env bash
# Grade a class on a Slurm cluster: one array task per shard, then a merge that waits for all.
#
#   bash deploy/slurm-array.sh    # on the login node: submits the array, then the merge after it
#
# (Started with sbatch instead, it runs only the array: every array task has SLURM_ARRAY_TASK_ID
# set, so none of them submits the merge.)
#
# COURSE is a checkout of this repository with its .venv built (`make setup`) on shared
# storage; SUBMITTED is the class in nbgrader's layout; OUT receives one folder per shard and
# the merged gradebook. --shard auto reads SLURM_ARRAY_TASK_ID (counted from the array's first task) and,
# with no N given, SLURM_ARRAY_TASK_COUNT. Merging again into the same grades folder replaces
# the earlier merge and keeps deadlines.toml, overrides.csv and roster.csv there. POLICY holds the class's deadlines.toml and overrides.csv, when it
# has them: every shard must apply the same ones (merge refuses shards that did not, and shards
# that did not apply a deadlines.toml or overrides.csv kept in the grades folder).
#SBATCH --job-name=grade-class
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=02:00:00
#SBATCH --output=grade-%A_%a.log
set -euo pipefail
COURSE=${COURSE:-$HOME/course}
SUBMITTED=${SUBMITTED:-$COURSE/submitted}
OUT=${OUT:-$COURSE/grades-shards}
POLICY=${POLICY:-$COURSE/policy}

if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # Run by hand (not as an array task): submit the array, then the merge after it.
    array=$(sbatch --parsable "$0")
    sbatch --dependency="afterok:${array}" --job-name=merge-grades --cpus-per-task=1 \
        --wrap="cd '$COURSE' && .venv/bin/python -m autograder merge '$OUT'/* --out '$COURSE/grades'"
    exit 0
fi
cd "$COURSE"
policy=()
[ -f "$POLICY/deadlines.toml" ] && policy+=(--deadlines "$POLICY/deadlines.toml")
[ -f "$POLICY/overrides.csv" ] && policy+=(--overrides "$POLICY/overrides.csv")
.venv/bin/python -m autograder grade-batch "$SUBMITTED" --out "$OUT/$SLURM_ARRAY_TASK_ID" \
    --shard auto --jobs "${SLURM_CPUS_PER_TASK:-2}" ${policy[@]+"${policy[@]}"}
