#!/bin/sh
# node-problem-detector's custom plugin for the pinbench check (pinbench-check.json runs it).
# Its protocol: stdout is the condition's message (pinbench's one-line verdict, at most 160
# bytes: pinbench-check.json's max_output_length keeps it whole), and the exit status is
#   0 OK       every GPU passed
#   1 NonOK    a GPU failed, the node has no usable GPU, or a CUDA call failed
#   2 Unknown  the check's settings are wrong (pinbench's exit 2), or it was stopped
# Settings from the environment (the DaemonSet sets them):
#   PINBENCH             the pinbench binary (default /usr/local/bin/pinbench)
#   PINBENCH_CHECK_ARGS  the check's options, e.g. "--floors /config/floors.conf"
PINBENCH=${PINBENCH:-/usr/local/bin/pinbench}
# shellcheck disable=SC2086  # the options are words
verdict=$("$PINBENCH" check --verdict ${PINBENCH_CHECK_ARGS:-} 2>/dev/null)
status=$?
[ -n "$verdict" ] || verdict="pinbench: check exited $status with nothing to say"
printf '%s\n' "$verdict"
case $status in
  0) exit 0 ;;
  1 | 3 | 4) exit 1 ;;
  *) exit 2 ;;
esac
