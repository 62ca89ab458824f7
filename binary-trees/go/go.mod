module allocorpool/binary-trees

go 1.21
