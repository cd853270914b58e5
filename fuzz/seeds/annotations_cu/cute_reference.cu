// layoutproof: smem sQ : f16 = Sw<3,3,3> o _0 o ((_8,_16),(_64,_2)):((_64,_512),(_1,_8192)) align 128 cute "SmemLayoutQ"
// layoutproof: cute "SmemLayoutQ" = tile_to_shape(composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{}), Shape<_128,_128>{})
using SmemLayoutQ = int;
