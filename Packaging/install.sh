#!/usr/bin/env bash
# Packaging/install.sh install|uninstall: what `make install` and `make uninstall` do (and `make deb`,
# which installs into its package's root). The Makefile passes everything through the environment:
#
#   PREFIX       where the files go (/usr/local, /usr)
#   DESTDIR      a staging folder put in front of every path (packagers); empty for a real install
#   BIN_DIR      the release build's programs                       (install only)
#   PROGRAMS     the programs to install from it                     (install only)
#   GENERATED    the folder holding elimage.1, elimage.bash, _elimage, elimage.fish (install only)
#   MODEL_DIR    the checked networks, as `make models` installs them (install only)
#   MODEL_CHECKS the networks' pinned SHA-256, "hash:folder/file" each (install only)
#   NO_MANIFEST  set: no manifest is written (a package manager keeps its own list)
#
# install writes $PREFIX/share/elimage/install-manifest: one "file PATH" line for each file installed
# and one "dir PATH" line for each folder it had to create (PATH without DESTDIR). uninstall removes
# those files, the manifest, and the folders that are left empty, deepest first: nothing else.
set -euo pipefail

action=${1:-}
: "${PREFIX:?PREFIX must be set (e.g. /usr/local)}"
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX%/}
MANIFEST=$PREFIX/share/elimage/install-manifest

files=()
folders=()

# Creates the folder $1 (a final path) under DESTDIR, noting each level that did not exist.
make_folder() {
    local path=$1 part="" level
    IFS=/ read -ra levels <<< "${path#/}"
    for level in "${levels[@]}"; do
        part=$part/$level
        if [ ! -d "$DESTDIR$part" ]; then
            mkdir "$DESTDIR$part"
            folders+=("$part")
        fi
    done
}

# put MODE SOURCE DESTINATION: installs one file (DESTINATION is its final path).
put() {
    local mode=$1 source=$2 destination=$3
    make_folder "$(dirname "$destination")"
    # `make install` into /usr/local installs the networks where `make models` put them: the same file.
    if [ ! "$source" -ef "$DESTDIR$destination" ]; then
        install -m "$mode" "$source" "$DESTDIR$destination"
    fi
    files+=("$destination")
}

install_all() {
    : "${BIN_DIR:?}" "${PROGRAMS:?}" "${GENERATED:?}" "${MODEL_DIR:?}" "${MODEL_CHECKS:?}"
    if [ -n "$DESTDIR" ]; then mkdir -p "$DESTDIR"; fi
    # Folders created by an earlier install at this prefix stay recorded.
    if [ -z "${NO_MANIFEST:-}" ] && [ -f "$DESTDIR$MANIFEST" ]; then
        while read -r kind path; do
            if [ "$kind" = dir ]; then folders+=("$path"); fi
        done < "$DESTDIR$MANIFEST"
    fi

    local program
    for program in $PROGRAMS; do
        put 755 "$BIN_DIR/$program" "$PREFIX/bin/$program"
    done
    put 644 "$GENERATED/elimage.1" "$PREFIX/share/man/man1/elimage.1"
    put 644 "$GENERATED/elimage.bash" "$PREFIX/share/bash-completion/completions/elimage"
    put 644 "$GENERATED/_elimage" "$PREFIX/share/zsh/site-functions/_elimage"
    put 644 "$GENERATED/elimage.fish" "$PREFIX/share/fish/vendor_completions.d/elimage.fish"
    # The pages that error messages point to (DocumentationPage), beside the changelog.
    local page
    for page in cli install SECURITY; do
        put 644 "docs/$page.md" "$PREFIX/share/doc/elimage/$page.md"
    done

    # The networks, each folder's licence, and SHA256SUMS (checked here against the pinned hashes).
    local models=$PREFIX/share/elimage/models check network
    local sums
    sums=$(mktemp)
    trap 'rm -f "$sums"' RETURN
    for check in $MODEL_CHECKS; do
        network=${check#*:}
        put 644 "$MODEL_DIR/$network" "$models/$network"
        printf '%s  %s\n' "${check%%:*}" "$network" >> "$sums"
    done
    for network in $(printf '%s\n' $MODEL_CHECKS | sed 's/^[^:]*://; s:/.*::' | sort -u); do
        put 644 "$MODEL_DIR/$network/LICENSE" "$models/$network/LICENSE"
    done
    put 644 "$sums" "$models/SHA256SUMS"
    chmod 644 "$DESTDIR$models/SHA256SUMS"
    (cd "$DESTDIR$models" && sha256sum --quiet -c SHA256SUMS)

    if [ -z "${NO_MANIFEST:-}" ]; then
        make_folder "$(dirname "$MANIFEST")"
        local written=$DESTDIR$MANIFEST.new
        {
            printf 'file %s\n' "${files[@]}"
            if [ ${#folders[@]} -gt 0 ]; then printf 'dir %s\n' "${folders[@]}" | sort -u; fi
        } > "$written"
        mv "$written" "$DESTDIR$MANIFEST"
        echo "installed ${#files[@]} files under $DESTDIR$PREFIX (list: $DESTDIR$MANIFEST)"
    fi
}

uninstall_all() {
    if [ ! -f "$DESTDIR$MANIFEST" ]; then
        echo "uninstall: $DESTDIR$MANIFEST is missing: nothing was installed at PREFIX=$PREFIX${DESTDIR:+ DESTDIR=$DESTDIR} by make install" >&2
        exit 1
    fi
    local kind path count=0
    while read -r kind path; do
        case $kind in
            file) rm -f "$DESTDIR$path"; count=$((count + 1)) ;;
            dir) folders+=("$path") ;;
        esac
    done < "$DESTDIR$MANIFEST"
    rm -f "$DESTDIR$MANIFEST"
    # Deepest first; a folder that holds anything else stays.
    if [ ${#folders[@]} -gt 0 ]; then
        while read -r path; do
            if [ -d "$DESTDIR$path" ]; then rmdir --ignore-fail-on-non-empty "$DESTDIR$path"; fi
        done < <(printf '%s\n' "${folders[@]}" | awk '{ print length($0) " " $0 }' | sort -rn | cut -d' ' -f2-)
    fi
    echo "removed $count files from $DESTDIR$PREFIX"
}

case $action in
    install) install_all ;;
    uninstall) uninstall_all ;;
    *) echo "usage: PREFIX=... [DESTDIR=...] $0 install|uninstall" >&2; exit 2 ;;
esac
