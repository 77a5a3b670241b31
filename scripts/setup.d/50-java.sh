#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Java side of the SMPP block (smpp/java): fetches the Maven module's
# dependencies and plugins once into the project's own local repository
# (.m2/repository, ignored by git), so that `make test` then runs Maven
# offline. A test run that selects no test makes surefire fetch its JUnit
# provider too (go-offline does not). Needs javac and mvn (Debian: openjdk-17-jdk-headless, maven, both
# in scripts/apt-packages.txt). Idempotent: re-fetches only when pom.xml
# changed; quiet when there is nothing to do.
set -euo pipefail
cd "$(dirname "$0")/../.."
pom=smpp/java/pom.xml
[ -f "$pom" ] || exit 0
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    echo "setup: java: mvn or javac not found; the SMPP Java tests need them" >&2
    exit 0
fi
stamp=.m2/.pom-stamp
if [ -d .m2/repository ] && cmp -s "$pom" "$stamp" 2>/dev/null; then
    exit 0
fi
echo "setup: fetching Maven dependencies of smpp/java into .m2/repository" >&2
mkdir -p .m2
log=.m2/setup.log
if ! mvn -B -f "$pom" -Dmaven.repo.local="$PWD/.m2/repository" \
        dependency:go-offline test -Dtest=SetupFetchesOnly \
        -Dsurefire.failIfNoSpecifiedTests=false >"$log" 2>&1; then
    echo "setup: java: Maven could not fetch the dependencies (see $log):" >&2
    grep -m3 ERROR "$log" >&2 || tail -3 "$log" >&2
    exit 1
fi
cp "$pom" "$stamp"
