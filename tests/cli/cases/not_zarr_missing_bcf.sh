# a missing BCF: not found, and gensvd would not read it anyway
"$GENSVD" info cohort.bcf
