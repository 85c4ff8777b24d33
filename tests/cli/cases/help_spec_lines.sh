# help --spec CMD: one line per option --help lists, seven tab-separated fields each
diff <("$GENSVD" help --spec pdist | cut -f1 | sort) <("$GENSVD" help pdist |
    sed -n 's/^  \(-[a-zA-Z0-9], \|    \)\(--[a-z][a-z0-9-]*\).*/\2/p' | sort) &&
    "$GENSVD" help --spec pdist | awk -F'\t' 'NF != 7 { exit 1 }' &&
    "$GENSVD" help --spec pdist | grep -q "^--layout	-	choice	L	square condensed	-	" &&
    test "$("$GENSVD" help --spec | cut -f1 | tr '\n' ' ')" = "pca pdist ldprune related project plot info dump simulate " &&
    # plot's first operand: the words its parser takes
    "$GENSVD" help --spec plot | head -1 | grep -q "^@1	-	operand	-	pca pdist	-	" &&
    ! "$GENSVD" help --spec pdist | grep -q "^@"
