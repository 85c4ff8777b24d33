mkdir plain && "$GENSVD" dump plain
