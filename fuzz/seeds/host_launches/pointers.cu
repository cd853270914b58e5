void (*k)(float*); k = &a; k<<<1, 32>>>(p); k = b<<1>>; void (*q)(int) = &z<1, 2>;
