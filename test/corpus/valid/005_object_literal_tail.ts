const n = 2;
{ doubled: n * 2, n }
