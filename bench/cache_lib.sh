# Sourced by compare.sh, run_all.sh and hosts_compare.sh: what they keep
# in the cache ($CACHE), shared so that one install serves all three.
# Needs CACHE and a log function.

# A PyPI MPI into $CACHE/peers/NAME-VERSION with pip's --prefix layout
# (bin/, lib/, include/): no virtual environment needed.
install_pip_peer() {
    local pkg=$1 version=$2 prefix=$CACHE/peers/$1-$2
    if [ ! -e "$prefix/.installed" ]; then
        log "installing $pkg $version from PyPI into $prefix"
        rm -rf "$prefix"
        PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
            --no-warn-script-location --ignore-installed --no-deps \
            --prefix "$prefix" "$pkg==$version" >&2 || { log "pip install $pkg failed"; return 1; }
        touch "$prefix/.installed"
    fi
    printf '%s\n' "$prefix"
}

# matplotlib in a venv of the cache, made on first use.  Prints the venv's
# python; returns 1 (with the reason on stderr) when it cannot be had.
plot_python() {
    local venv=$CACHE/venv
    if [ -e "$venv/.matplotlib" ] && "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
        printf '%s\n' "$venv/bin/python"
        return 0
    fi
    log "installing matplotlib from PyPI into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv" >&2 \
        || { log "python3 -m venv failed (Debian: apt-get install python3-venv)"; return 1; }
    PIP_ROOT_USER_ACTION=ignore "$venv/bin/python" -m pip install --quiet \
        --disable-pip-version-check --timeout 30 --retries 1 matplotlib >&2 \
        || { log "pip install matplotlib failed"; return 1; }
    touch "$venv/.matplotlib"
    printf '%s\n' "$venv/bin/python"
}
