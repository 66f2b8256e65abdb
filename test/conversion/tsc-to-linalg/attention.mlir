// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg | FileCheck %s
// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg=max-key-value-block-bytes=32768 | FileCheck %s --check-prefix=BOUNDED

// Grouped-query causal attention with a boolean mask: one forall iteration
// per (batch, head, block of 64 query rows), a key loop over blocks of 64
// keys that ends at the block's last visible key, and only [64 x 64] score
// tiles: no [B, H, Sq, Skv] tensor exists. On the host the same nest with
// blocks of 128 query rows comes first, into the same tensor: with dynamic
// sequences the sizes at run time pick one (both over 64: the long one), the
// other has no query blocks.
// CHECK:       #[[ROW0:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @attention_gqa_causal_bool_mask
// CHECK-SAME:    (%[[QA:.+]]: tensor<?x8x?x16xf32>, %[[KA:.+]]: tensor<?x2x?x16xf32>, %[[VA:.+]]: tensor<?x2x?x16xf32>, %[[MA:.+]]: tensor<?x1x1x?xi1>)
// CHECK-DAG:     %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[SCALE:.+]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG:     %[[C128:.+]] = arith.constant 128 : index
// CHECK-NOT:     tensor<?x8x?x?xf32>
// CHECK:         %[[SKV:.+]] = tensor.dim %[[KA]]
// CHECK:         %[[OFFSET:.+]] = arith.subi %[[SKV]], %{{.+}} : index
// CHECK:         %[[EMPTY:.+]] = tensor.empty
// CHECK:         %[[LONGQ:.+]] = arith.cmpi ugt, %{{.+}}, %[[C64]] : index
// CHECK:         %[[LONGK:.+]] = arith.cmpi ugt, %[[SKV]], %[[C64]] : index
// CHECK:         %[[LONG:.+]] = arith.andi %[[LONGQ]], %[[LONGK]] : i1
// CHECK:         %[[LONGBLOCKS:.+]] = arith.ceildivui %{{.+}}, %[[C128]] : index
// CHECK:         %[[LONGCOUNT:.+]] = arith.select %[[LONG]], %[[LONGBLOCKS]], %{{.+}} : index
// CHECK:         %[[LONGOUT:.+]] = scf.forall ({{.+}}) in (%{{.+}}, %{{.+}}, %[[LONGCOUNT]]) shared_outs(%{{.+}} = %[[EMPTY]])
// CHECK:           -> (tensor<128xf32>, tensor<128xf32>, tensor<128x16xf32>)
// CHECK:         %[[SHORT:.+]] = arith.xori %[[LONG]], %{{.+}} : i1
// CHECK:         %[[BLOCKS64:.+]] = arith.ceildivui %{{.+}}, %[[C64]] : index
// CHECK:         %[[BLOCKS:.+]] = arith.select %[[SHORT]], %[[BLOCKS64]], %{{.+}} : index
// CHECK:         %[[OUT:.+]] = scf.forall (%[[B:.+]], %[[H:.+]], %[[QB:.+]]) in (%{{.+}}, %{{.+}}, %[[BLOCKS]]) shared_outs(%[[SHARED:.+]] = %[[LONGOUT]]) -> (tensor<?x8x?x16xf32>)
// CHECK:           %[[Q0:.+]] = arith.muli %[[QB]], %[[C64]] : index
// CHECK:           %[[KVH:.+]] = arith.divui %[[H]], %{{.+}} : index
// CHECK:           %[[QT:.+]] = linalg.generic
// CHECK-SAME:          outs(%{{.+}} : tensor<64x16xf32>)
// CHECK:             tensor.extract %[[QA]][%[[B]], %[[H]], %{{.+}}, %{{.+}}]
// CHECK:             arith.mulf %{{.+}}, %[[SCALE]] : f32
// CHECK:           %[[END:.+]] = arith.minsi %{{.+}}, %[[SKV]] : index
// CHECK:           %[[LOOP:.+]]:3 = scf.for %[[K0:.+]] = %{{.+}} to %[[END]] step %[[C64]] iter_args(%[[M:.+]] = %{{.+}}, %[[L:.+]] = %{{.+}}, %[[ACC:.+]] = %{{.+}}) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x16xf32>)
// CHECK:             %[[KT:.+]] = linalg.generic
// CHECK:               tensor.extract %[[KA]][%[[B]], %[[KVH]], %{{.+}}, %{{.+}}]
// CHECK:             } -> tensor<16x64xf32>
// CHECK:             %[[VT:.+]] = linalg.generic
// CHECK:               tensor.extract %[[VA]][%[[B]], %[[KVH]], %{{.+}}, %{{.+}}]
// CHECK:             } -> tensor<64x16xf32>
// CHECK:             %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[QT]], %[[KT]] : tensor<64x16xf32>, tensor<16x64xf32>) outs(%{{.+}} : tensor<64x64xf32>)
// The padding mask is the same for every query row: one [1 x 64] tile per
// key block, which the score loop reads at (0, j).
// CHECK:             %[[MT:.+]] = linalg.generic
// CHECK:               tensor.extract %[[MA]][%[[B]], %{{.+}}, %{{.+}}, %{{.+}}] : tensor<?x1x1x?xi1>
// CHECK:             } -> tensor<1x64xi1>
// CHECK:             %[[MASKED:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[ROW0]], #{{.+}}], {{.+}} ins(%[[S]], %[[MT]] : tensor<64x64xf32>, tensor<1x64xi1>)
// CHECK-NEXT:          ^bb0(%{{.+}}: f32, %[[MV:.+]]: i1, %{{.+}}: f32):
// CHECK:               %[[KEY:.+]] = arith.addi %[[K0]], %{{.+}} : index
// CHECK:               %[[INSIDE:.+]] = arith.cmpi ult, %[[KEY]], %[[SKV]] : index
// CHECK:               %[[LAST:.+]] = arith.addi %{{.+}}, %[[OFFSET]] : index
// CHECK:               %[[SEEN:.+]] = arith.cmpi sle, %[[KEY]], %[[LAST]] : index
// CHECK:               %[[KEEP:.+]] = arith.andi %[[INSIDE]], %[[SEEN]] : i1
// CHECK:               %[[KEEP2:.+]] = arith.andi %[[KEEP]], %[[MV]] : i1
// CHECK:               arith.select %[[KEEP2]], %{{.+}}, %[[NEGINF]] : f32
// The row max may ignore NaN (a tree of maxima in LLVM); m' = max(m, rowmax)
// may not.
// CHECK:             %[[ROWMAX:.+]] = linalg.generic {{.+}} ins(%[[MASKED]] : tensor<64x64xf32>)
// CHECK:               arith.maxnumf %{{.+}}, %{{.+}} fastmath<nnan> : f32
// CHECK:             %[[STATS:.+]]:2 = linalg.generic {{.+}} ins(%[[ROWMAX]] : tensor<64xf32>) outs(%[[M]], %{{.+}} : tensor<64xf32>, tensor<64xf32>)
// CHECK:               arith.maxnumf %{{.+}}, %{{.+}} : f32
// CHECK:               math.exp
// CHECK:             %[[P:.+]] = linalg.generic {{.+}} ins(%[[MASKED]], %[[STATS]]#0 : tensor<64x64xf32>, tensor<64xf32>)
// CHECK:               math.exp
// CHECK:             %[[LS:.+]] = linalg.generic {{.+}} ins(%[[STATS]]#1 : tensor<64xf32>) outs(%[[L]] : tensor<64xf32>)
// CHECK:             %[[L2:.+]] = linalg.generic {{.+}} ins(%[[P]] : tensor<64x64xf32>) outs(%[[LS]] : tensor<64xf32>)
// CHECK:             %[[AS:.+]] = linalg.generic {{.+}} ins(%[[STATS]]#1 : tensor<64xf32>) outs(%[[ACC]] : tensor<64x16xf32>)
// CHECK:             %[[A2:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[P]], %[[VT]] : tensor<64x64xf32>, tensor<64x16xf32>) outs(%[[AS]] : tensor<64x16xf32>)
// CHECK:             scf.yield %[[STATS]]#0, %[[L2]], %[[A2]]
// CHECK:           %[[TILE:.+]] = linalg.generic {{.+}} ins(%[[LOOP]]#2, %[[LOOP]]#1 : tensor<64x16xf32>, tensor<64xf32>)
// CHECK:             arith.divf
// CHECK:           %[[ROWS:.+]] = tensor.extract_slice %[[TILE]][0, 0] [%{{.+}}, 16] [1, 1] : tensor<64x16xf32> to tensor<?x16xf32>
// CHECK:           scf.forall.in_parallel
// CHECK:             tensor.parallel_insert_slice %[[ROWS]] into %[[SHARED]][%[[B]], %[[H]], %[[Q0]], 0] [1, 1, %{{.+}}, 16] [1, 1, 1, 1] : tensor<?x16xf32> into tensor<?x8x?x16xf32>
// CHECK:         return %[[OUT]]
func.func @attention_gqa_causal_bool_mask(%q: tensor<?x8x?x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>, %m: tensor<?x1x1x?xi1>) -> tensor<?x8x?x16xf32> {
  %o = tsc.attention %q, %k, %v mask %m causal : (tensor<?x8x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x1x1x?xi1>) -> tensor<?x8x?x16xf32>
  return %o : tensor<?x8x?x16xf32>
}

// -----

// bshd in f16 with static sequences shorter than a block: tiles shrink to
// them. With bounded tile bytes (the CUDA target's shared memory) Q, K, V
// and P are f16 tiles (the products extend them to f32, as tensor cores
// do), S gets the scale 1/sqrt(8) in f32; the result truncates on writing,
// the row block is written at [b, q0, h, 0], and the float mask is added.
// On the host (no bound) the gathers extend Q (scaled), K and V to f32
// tiles once and the products and P are f32.
// CHECK-LABEL: func.func @attention_bshd_f16_float_mask
// CHECK-DAG:     %[[SCALE:.+]] = arith.constant 0.353553{{[0-9]+}} : f32
// CHECK:         scf.forall
// CHECK:           arith.extf %{{.+}} : f16 to f32
// CHECK:           arith.mulf %{{.+}}, %[[SCALE]] : f32
// CHECK:           } -> tensor<5x8xf32>
// CHECK:           scf.for
// CHECK:             arith.extf %{{.+}} : f16 to f32
// CHECK:             } -> tensor<8x7xf32>
// CHECK:             arith.extf %{{.+}} : f16 to f32
// CHECK:             } -> tensor<7x8xf32>
// CHECK:             ins(%{{.+}}, %{{.+}} : tensor<5x8xf32>, tensor<8x7xf32>)
// CHECK-NOT:         arith.extf
// CHECK:             } -> tensor<5x7xf32>
// CHECK-NOT:         arith.truncf
// CHECK:             ins(%{{.+}}, %{{.+}} : tensor<5x7xf32>, tensor<7x8xf32>) outs(%{{.+}} : tensor<5x8xf32>)
// CHECK:           arith.truncf %{{.+}} : f32 to f16
// BOUNDED-LABEL: func.func @attention_bshd_f16_float_mask
// BOUNDED-SAME:    (%[[QA:.+]]: tensor<2x5x4x8xf16>, %[[KA:.+]]: tensor<2x7x2x8xf16>, %[[VA:.+]]: tensor<2x7x2x8xf16>, %[[MA:.+]]: tensor<5x7xf16>)
// BOUNDED-DAG:     %[[SCALE:.+]] = arith.constant 0.353553{{[0-9]+}} : f32
// BOUNDED:         scf.forall (%[[B:.+]], %[[H:.+]], %[[QB:.+]]) in
// BOUNDED:           tensor.extract %[[QA]][%[[B]], %{{.+}}, %[[H]], %{{.+}}] : tensor<2x5x4x8xf16>
// BOUNDED-NOT:       arith.extf
// BOUNDED:           } -> tensor<5x8xf16>
// BOUNDED:           scf.for
// BOUNDED:             tensor.extract %[[KA]][%[[B]], %{{.+}}, %{{.+}}, %{{.+}}] : tensor<2x7x2x8xf16>
// BOUNDED:             } -> tensor<8x7xf16>
// BOUNDED:             tensor.extract %[[VA]][%[[B]], %{{.+}}, %{{.+}}, %{{.+}}] : tensor<2x7x2x8xf16>
// BOUNDED:             } -> tensor<7x8xf16>
// BOUNDED:             ins(%{{.+}}, %{{.+}} : tensor<5x8xf16>, tensor<8x7xf16>)
// BOUNDED:             arith.extf %{{.+}} : f16 to f32
// BOUNDED:             arith.extf %{{.+}} : f16 to f32
// BOUNDED:             arith.mulf
// BOUNDED:             } -> tensor<5x7xf32>
// BOUNDED:             tensor.extract %[[MA]][%{{.+}}, %{{.+}}] : tensor<5x7xf16>
// BOUNDED:             } -> tensor<5x7xf16>
// BOUNDED:             arith.mulf %{{.+}}, %[[SCALE]] : f32
// BOUNDED:             arith.extf %{{.+}} : f16 to f32
// BOUNDED:             arith.addf
// BOUNDED:             math.exp
// BOUNDED:             arith.truncf %{{.+}} : f32 to f16
// BOUNDED:             } -> tensor<5x7xf16>
// BOUNDED:             ins(%{{.+}}, %{{.+}} : tensor<5x7xf16>, tensor<7x8xf16>) outs(%{{.+}} : tensor<5x8xf32>)
// BOUNDED:           arith.truncf %{{.+}} : f32 to f16
// BOUNDED:           tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[B]], %{{.+}}, %[[H]], 0] [1, %{{.+}}, 1, 8] [1, 1, 1, 1] : tensor<?x8xf16> into tensor<2x5x4x8xf16>
func.func @attention_bshd_f16_float_mask(%q: tensor<2x5x4x8xf16>, %k: tensor<2x7x2x8xf16>, %v: tensor<2x7x2x8xf16>, %m: tensor<5x7xf16>) -> tensor<2x5x4x8xf16> {
  %o = tsc.attention %q, %k, %v mask %m bshd : (tensor<2x5x4x8xf16>, tensor<2x7x2x8xf16>, tensor<2x7x2x8xf16>, tensor<5x7xf16>) -> tensor<2x5x4x8xf16>
  return %o : tensor<2x5x4x8xf16>
}

// -----

// Head counts and head size unknown at compile time: the K/V head is
// h / (H / Hkv) at run time, tiles have a dynamic head dim, and the default
// scale is 1/sqrt(D) of the run-time head size.
// CHECK-LABEL: func.func @attention_dynamic_heads
// CHECK-SAME:    (%[[QA:.+]]: tensor<1x?x3x?xf32>, %[[KA:.+]]: tensor<1x?x5x?xf32>, %[[VA:.+]]: tensor<1x?x5x?xf32>)
// CHECK:         %[[H:.+]] = tensor.dim %[[QA]], %{{.+}} : tensor<1x?x3x?xf32>
// CHECK:         %[[HKV:.+]] = tensor.dim %[[KA]], %{{.+}} : tensor<1x?x5x?xf32>
// CHECK:         %[[G:.+]] = arith.divui %[[H]], %[[HKV]] : index
// CHECK:         %[[D64:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK:         %[[DF:.+]] = arith.sitofp %[[D64]] : i64 to f32
// CHECK:         %[[ROOT:.+]] = math.sqrt %[[DF]] : f32
// CHECK:         scf.forall (%{{.+}}, %[[HIV:.+]], %{{.+}}) in
// CHECK:           arith.divui %[[HIV]], %[[G]] : index
// CHECK:           } -> tensor<3x?xf32>
func.func @attention_dynamic_heads(%q: tensor<1x?x3x?xf32>, %k: tensor<1x?x5x?xf32>, %v: tensor<1x?x5x?xf32>) -> tensor<1x?x3x?xf32> {
  %o = tsc.attention %q, %k, %v : (tensor<1x?x3x?xf32>, tensor<1x?x5x?xf32>, tensor<1x?x5x?xf32>) -> tensor<1x?x3x?xf32>
  return %o : tensor<1x?x3x?xf32>
}

// -----

// bf16 with bf16 products (bf16-products, the host with AMX or
// AVX512_BF16): Q, K, V and P are bf16 tiles, 128 keys per block in the long nest (64 in the short
// one), K gathered as it is ([Bk, D]) and
// S = Q·Kᵀ over loops (i, j, d) from it; the scale multiplies S in f32, P
// is rounded to bf16 before P·V. Without the option the same op keeps f32
// tiles (the Kᵀ gather widens once; the default prefix).
// RUN: tsc-opt %s --split-input-file --tsc-convert-to-linalg=bf16-products=true | FileCheck %s --check-prefix=AMX
// AMX-LABEL: func.func @attention_bf16_amx
// AMX-DAG:     %[[C128:.+]] = arith.constant 128 : index
// AMX:         scf.forall
// AMX:           } -> tensor<128x64xbf16>
// AMX:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C128]]
// AMX:             %[[K:.+]] = linalg.generic
// AMX-NOT:           arith.extf
// AMX:             } -> tensor<128x64xbf16>
// AMX:             %[[V:.+]] = linalg.generic
// AMX:             } -> tensor<128x64xbf16>
// AMX:             %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %[[K]] : tensor<128x64xbf16>, tensor<128x64xbf16>) outs(%{{.+}} : tensor<128x128xf32>)
// AMX:             arith.truncf %{{.+}} : f32 to bf16
// AMX:             } -> tensor<128x128xbf16>
// AMX:             ins(%{{.+}}, %[[V]] : tensor<128x128xbf16>, tensor<128x64xbf16>) outs(%{{.+}} : tensor<128x64xf32>)
// CHECK-LABEL: func.func @attention_bf16_amx
// CHECK:         scf.for
// CHECK:           arith.extf %{{.+}} : bf16 to f32
// CHECK:           } -> tensor<64x64xf32>
func.func @attention_bf16_amx(%q: tensor<?x12x?x64xbf16>, %k: tensor<?x12x?x64xbf16>, %v: tensor<?x12x?x64xbf16>, %m: tensor<?x1x1x?xbf16>) -> tensor<?x12x?x64xbf16> {
  %o = tsc.attention %q, %k, %v mask %m : (tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x12x?x64xbf16>, tensor<?x1x1x?xbf16>) -> tensor<?x12x?x64xbf16>
  return %o : tensor<?x12x?x64xbf16>
}

// -----

// Near misses of the pair layout: a head dim of 48 (not whole tiles of 32
// bf16) and f32 attention without bf16_products keep f32 tiles and Kᵀ
// [D, Bk].
// AMX-LABEL: func.func @attention_amx_near_misses
// AMX:         } -> tensor<48x64xf32>
// AMX:         } -> tensor<64x64xf32>
// AMX-NOT:     tensor<128x128xf32>
func.func @attention_amx_near_misses(%q: tensor<?x4x?x48xbf16>, %k: tensor<?x4x?x48xbf16>, %v: tensor<?x4x?x48xbf16>, %qf: tensor<?x4x?x64xf32>) -> (tensor<?x4x?x48xbf16>, tensor<?x4x?x64xf32>) {
  %o = tsc.attention %q, %k, %v : (tensor<?x4x?x48xbf16>, tensor<?x4x?x48xbf16>, tensor<?x4x?x48xbf16>) -> tensor<?x4x?x48xbf16>
  %of = tsc.attention %qf, %qf, %qf : (tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>) -> tensor<?x4x?x64xf32>
  return %o, %of : tensor<?x4x?x48xbf16>, tensor<?x4x?x64xf32>
}

// -----

// f32 attention marked bf16_products (tsc-attention-bf16-products) takes the
// pair layout as bf16 attention does: Q, K and V are gathered from f32 and
// rounded to bf16 tiles, S = Q·Kᵀ from K as it is, P rounded to bf16, while
// S, the statistics, O and the result stay f32. Without bf16-products (the
// CUDA target, a host without bf16 products) the mark changes nothing; nor
// with a head dim of 48.
// AMX-LABEL: func.func @attention_f32_bf16_products
// AMX-DAG:     %[[C128:.+]] = arith.constant 128 : index
// AMX:         scf.forall
// AMX:           arith.truncf %{{.+}} : f32 to bf16
// AMX:           } -> tensor<128x64xbf16>
// AMX:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C128]]
// AMX:             %[[K:.+]] = linalg.generic
// AMX:               arith.truncf %{{.+}} : f32 to bf16
// AMX:             } -> tensor<128x64xbf16>
// AMX:             %[[V:.+]] = linalg.generic
// AMX:               arith.truncf %{{.+}} : f32 to bf16
// AMX:             } -> tensor<128x64xbf16>
// AMX:             %[[S:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %[[K]] : tensor<128x64xbf16>, tensor<128x64xbf16>) outs(%{{.+}} : tensor<128x128xf32>)
// AMX:             arith.truncf %{{.+}} : f32 to bf16
// AMX:             } -> tensor<128x128xbf16>
// AMX:             ins(%{{.+}}, %[[V]] : tensor<128x128xbf16>, tensor<128x64xbf16>) outs(%{{.+}} : tensor<128x64xf32>)
// AMX-LABEL: func.func @attention_f32_bf16_products_near_miss
// AMX-NOT:     bf16
// AMX:         return
// CHECK-LABEL: func.func @attention_f32_bf16_products
// CHECK-NOT:     bf16
// CHECK:         return
func.func @attention_f32_bf16_products(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>, %m: tensor<?x1x1x?xf32>) -> tensor<?x12x?x64xf32> {
  %o = tsc.attention %q, %k, %v mask %m bf16_products : (tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x1x1x?xf32>) -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}

func.func @attention_f32_bf16_products_near_miss(%q: tensor<?x4x?x48xf32>) -> tensor<?x4x?x48xf32> {
  %o = tsc.attention %q, %q, %q bf16_products : (tensor<?x4x?x48xf32>, tensor<?x4x?x48xf32>, tensor<?x4x?x48xf32>) -> tensor<?x4x?x48xf32>
  return %o : tensor<?x4x?x48xf32>
}
