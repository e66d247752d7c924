"a_b_c".replace(/_/g, "-")
