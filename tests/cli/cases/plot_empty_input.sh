# an empty INPUT is refused in words, before anything is read
"$GENSVD" plot pca "" -o p.svg
