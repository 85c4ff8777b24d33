mkdir v3 && echo "{\"zarr_format\": 3, \"node_type\": \"group\"}" > v3/zarr.json && "$GENSVD" info v3
