// RUN: tsc-opt %s --split-input-file --verify-diagnostics

// Verifier and result-inference errors of attention, reshape, expand,
// transpose and concat.

func.func @attention_rank_3(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+2 {{query, key and value must be rank 4 [batch, heads, seq, dim]}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_element_types(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+2 {{query, key and value element types differ}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_batch_differs(%q: tensor<1x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+2 {{batch sizes differ (query 'tensor<1x4x8x16xf32>', key 'tensor<2x4x8x16xf32>', value 'tensor<2x4x8x16xf32>')}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_kv_heads_differ(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x2x8x16xf32>) {
  // expected-error @+2 {{key and value head counts differ (query 'tensor<1x4x8x16xf32>', key 'tensor<1x4x8x16xf32>', value 'tensor<1x2x8x16xf32>')}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_kv_seq_differ(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x9x16xf32>) {
  // expected-error @+2 {{key and value sequence lengths differ (query 'tensor<1x4x8x16xf32>', key 'tensor<1x4x8x16xf32>', value 'tensor<1x4x9x16xf32>')}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x9x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_head_dim_mismatch(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x32xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+2 {{query and key head dims differ (query 'tensor<1x4x8x16xf32>', key 'tensor<1x4x8x32xf32>', value 'tensor<1x4x8x16xf32>')}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x4x8x32xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_heads_not_divisible(%q: tensor<1x6x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+2 {{query heads (6) must be a multiple of key/value heads (4)}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<1x6x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x6x8x16xf32>
  return
}

// -----

func.func @attention_zero_kv_heads(%q: tensor<1x4x8x16xf32>, %k: tensor<1x0x8x16xf32>, %v: tensor<1x0x8x16xf32>) {
  // expected-error @+2 {{query heads (4) must be a multiple of key/value heads (0)}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<1x4x8x16xf32>, tensor<1x0x8x16xf32>, tensor<1x0x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_mask_element_type(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %m: tensor<8x8xi32>) {
  // expected-error @+2 {{mask must be i1 or 'f32', got 'i32'}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v mask %m : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<8x8xi32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_mask_does_not_broadcast(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x10x16xf32>, %v: tensor<1x4x10x16xf32>, %m: tensor<8x8xi1>) {
  // expected-error @+2 {{mask 'tensor<8x8xi1>' does not broadcast to the scores [1, 4, 8, 10]}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v mask %m : (tensor<1x4x8x16xf32>, tensor<1x4x10x16xf32>, tensor<1x4x10x16xf32>, tensor<8x8xi1>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_mask_would_grow_scores(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %m: tensor<2x4x8x8xf32>) {
  // expected-error @+2 {{mask 'tensor<2x4x8x8xf32>' does not broadcast to the scores [1, 4, 8, 8]}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v mask %m : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<2x4x8x8xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_mask_rank_5(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %m: tensor<1x1x4x8x8xi1>) {
  // expected-error @+2 {{mask 'tensor<1x1x4x8x8xi1>' does not broadcast to the scores [1, 4, 8, 8]}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v mask %m : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x1x4x8x8xi1>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_zero_scale(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+2 {{scale must be finite and nonzero}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v scale = 0.0 : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @attention_infinite_scale(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) {
  // expected-error @+2 {{scale must be finite and nonzero}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v scale = 0x7FF0000000000000 : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tsc.reshape' op cannot reshape 6 elements ('tensor<2x3xf32>') into 7 ('tensor<7xf32>')}}
  %y = tsc.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  return
}

// -----

func.func @reshape_missing_shape_operand(%x: tensor<?x768xf32>, %n: index) {
  // expected-error @+1 {{'tsc.reshape' op needs one shape operand per dynamic result dim (2), got 1}}
  %y = tsc.reshape %x [%n] : tensor<?x768xf32> -> tensor<?x?x64xf32>
  return
}

// -----

func.func @reshape_extra_shape_operand(%x: tensor<2x3xf32>, %n: index) {
  // expected-error @+1 {{'tsc.reshape' op needs one shape operand per dynamic result dim (0), got 1}}
  %y = tsc.reshape %x [%n] : tensor<2x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tsc.reshape' op changes the element type from 'f32' to 'f16'}}
  %y = tsc.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  return
}

// -----

func.func @expand_cannot_broadcast(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tsc.expand' op input dim 0 of size 3 cannot broadcast to 4}}
  %y = tsc.expand %x : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @expand_to_lower_rank(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{'tsc.expand' op cannot expand rank 2 to the lower rank 1}}
  %y = tsc.expand %x : tensor<1x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @expand_missing_shape_operand(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{'tsc.expand' op needs one shape operand per dynamic result dim (1), got 0}}
  %y = tsc.expand %x : tensor<1x3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @transpose_not_a_permutation(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{perm [0, 1, 1] is not a permutation of [0, 3)}}
  // expected-error @+1 {{'tsc.transpose' op failed to infer returned types}}
  %y = tsc.transpose %x perm = [0, 1, 1] : (tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  return
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{perm [2, 0] is not a permutation of [0, 2)}}
  // expected-error @+1 {{'tsc.transpose' op failed to infer returned types}}
  %y = tsc.transpose %x perm = [2, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_perm_wrong_length(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{perm has 3 entries for rank 2}}
  // expected-error @+1 {{'tsc.transpose' op failed to infer returned types}}
  %y = tsc.transpose %x perm = [1, 0, 2] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'tsc.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'tsc.transpose' op failed to infer returned types}}
  %y = tsc.transpose %x perm = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_dims_differ(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{inputs differ in dim 0: 2 vs 4}}
  // expected-error @+1 {{'tsc.concat' op failed to infer returned types}}
  %c = tsc.concat %a, %b axis = 1 : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @concat_ranks_differ(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{inputs must share rank and element type: 'tensor<2x3xf32>' vs 'tensor<3xf32>'}}
  // expected-error @+1 {{'tsc.concat' op failed to infer returned types}}
  %c = tsc.concat %a, %b axis = 0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range [0, 2)}}
  // expected-error @+1 {{'tsc.concat' op failed to infer returned types}}
  %c = tsc.concat %a, %a axis = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+2 {{concat needs at least one input}}
  // expected-error @+1 {{'tsc.concat' op failed to infer returned types}}
  %c = tsc.concat axis = 0 : () -> tensor<0xf32>
  return
}

// -----

func.func @concat_wrong_sum(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+2 {{'tsc.concat' op inferred type(s) 'tensor<2x8xf32>' are incompatible with return type(s) of operation 'tensor<2x9xf32>'}}
  // expected-error @+1 {{'tsc.concat' op failed to infer returned types}}
  %c = tsc.concat %a, %b axis = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x9xf32>
  return
}

// -----

func.func @attention_key_value_batch_differs(%q: tensor<?x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+2 {{batch sizes differ (query 'tensor<?x4x8x16xf32>', key 'tensor<1x4x8x16xf32>', value 'tensor<2x4x8x16xf32>')}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v : (tensor<?x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<?x4x8x16xf32>
  return
}

// -----

// A mask may not widen the scores: 7 query rows against a single query.
func.func @attention_mask_wider_than_scores(%q: tensor<1x4x1x16xf32>, %k: tensor<1x4x7x16xf32>, %v: tensor<1x4x7x16xf32>, %m: tensor<1x1x7x7xf32>) {
  // expected-error @+2 {{mask 'tensor<1x1x7x7xf32>' does not broadcast to the scores [1, 4, 1, 7]}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v mask %m : (tensor<1x4x1x16xf32>, tensor<1x4x7x16xf32>, tensor<1x4x7x16xf32>, tensor<1x1x7x7xf32>) -> tensor<1x4x1x16xf32>
  return
}

// -----

// Dynamic dims print as `?` in the message.
func.func @attention_mask_dynamic_scores(%q: tensor<1x4x?x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %m: tensor<2x1x8x8xi1>) {
  // expected-error @+2 {{mask 'tensor<2x1x8x8xi1>' does not broadcast to the scores [1, 4, ?, 8]}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v mask %m : (tensor<1x4x?x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<2x1x8x8xi1>) -> tensor<1x4x?x16xf32>
  return
}

// -----

// With bshd, dim 2 holds the heads: 6 query heads cannot share 4 K/V heads.
func.func @attention_bshd_heads_not_divisible(%q: tensor<1x8x6x16xf32>, %k: tensor<1x8x4x16xf32>, %v: tensor<1x8x4x16xf32>) {
  // expected-error @+2 {{query heads (6) must be a multiple of key/value heads (4)}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v bshd : (tensor<1x8x6x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>) -> tensor<1x8x6x16xf32>
  return
}

// -----

// With bshd, the mask's rows are still the query sequence (dim 1 of query).
func.func @attention_bshd_mask_rows(%q: tensor<1x1x4x16xf32>, %k: tensor<1x7x4x16xf32>, %v: tensor<1x7x4x16xf32>, %m: tensor<1x1x7x7xf32>) {
  // expected-error @+2 {{mask 'tensor<1x1x7x7xf32>' does not broadcast to the scores [1, 4, 1, 7]}}
  // expected-error @+1 {{'tsc.attention' op failed to infer returned types}}
  %o = tsc.attention %q, %k, %v mask %m bshd : (tensor<1x1x4x16xf32>, tensor<1x7x4x16xf32>, tensor<1x7x4x16xf32>, tensor<1x1x7x7xf32>) -> tensor<1x1x4x16xf32>
  return
}
