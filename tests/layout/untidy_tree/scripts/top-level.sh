#!/usr/bin/env bash
echo top
