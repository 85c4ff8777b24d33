# an empty INPUT is refused in words, before anything is read
"$GENSVD" ldprune --window 10 ""
