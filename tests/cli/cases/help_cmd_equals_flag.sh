diff <("$GENSVD" help dump) <("$GENSVD" dump --help) && "$GENSVD" help simulate | grep -q "^Usage: gensvd simulate"
