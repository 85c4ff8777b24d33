"$GENSVD" --version | grep -E "^(gensvd [0-9]+\.[0-9]+\.[0-9]+|backends: .*cpu.*|stores: .*file.*|codecs: blosc, zstd, zlib, gzip, lz4, delta, vlen-utf8, crc32c|libraries: .*)$" | wc -l
