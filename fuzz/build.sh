#!/bin/bash -eu
# Build the atheris fuzz targets (fuzz/fuzz_*.py) the OSS-Fuzz way.
#
# Inside the OSS-Fuzz / ClusterFuzzLite builder image (gcr.io/oss-fuzz-base/base-builder-python,
# where `compile_python_fuzzer` is on PATH and $OUT is set; .clusterfuzzlite/build.sh calls this):
# installs the project, bundles each target with PyInstaller into $OUT/fuzz_<chunker>, and puts
# next to it what libFuzzer picks up by name: the seed corpus ($OUT/fuzz_<chunker>_seed_corpus.zip),
# the dictionary ($OUT/fuzz_<chunker>.dict) and the options ($OUT/fuzz_<chunker>.options).
#
# Anywhere else (a checkout with `pip install -e '.[fuzz]'`): writes the same corpus, dictionary
# and options files to ${OUT:-build/fuzz} and runs each target once over its seeds, so a broken
# target or a seed that fails its own chunker shows up before CI does.

cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/build/fuzz}"
mkdir -p "$OUT"

in_builder=false
if command -v compile_python_fuzzer >/dev/null 2>&1; then
  in_builder=true
  python3 -m pip install .   # atheris itself comes with the builder image
fi

for fuzzer in fuzz/fuzz_*.py; do
  name=$(basename "$fuzzer" .py)
  chunker=${name#fuzz_}
  if [ ! -f "chunk_contract_reference/$chunker.py" ]; then
    echo "build.sh: skipping $name: chunk_contract_reference/$chunker.py does not exist yet"
    continue
  fi
  cp fuzz/chunks.dict "$OUT/$name.dict"
  cat > "$OUT/$name.options" <<OPTIONS
[libfuzzer]
dict = $name.dict
max_len = 4096
timeout = 10
rss_limit_mb = 2560
OPTIONS
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "fuzz/corpus/$chunker" && python3 -m zipfile -c "$OUT/${name}_seed_corpus.zip" ./*)
  if $in_builder; then
    # The chunker is loaded by its target string at run time: tell PyInstaller about it.
    compile_python_fuzzer "$fuzzer" --paths fuzz --paths . \
      --hidden-import "chunk_contract_reference.$chunker" --collect-submodules chunk_contract_reference \
      --collect-submodules chunk_contract.spec.invariants
  else
    python3 "$fuzzer" -runs=0 -timeout=10 -artifact_prefix="$OUT/" "fuzz/corpus/$chunker"
  fi
done
echo "build.sh: fuzz targets and their corpora, dictionaries and options are in $OUT"
