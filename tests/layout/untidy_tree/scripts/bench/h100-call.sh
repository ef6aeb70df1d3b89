#!/usr/bin/env bash
# Everything in one file: the device tool brings back at most eight files per call.
