;; Dot products of one int16 query with every row of an int8 matrix, four i32 lanes at a time
;; (WebAssembly SIMD). Source of int8-dots.wasm: `npm run build:wasm` (scripts/build-wasm.mjs).
;;
;; dots(query, matrix, rows, stride, out): for each row i < rows,
;;   out[i] = Σ_d query[d] · matrix[i·stride + d]   (d < stride; stride a multiple of 16)
;; query: stride int16 values at byte `query`; matrix: rows·stride int8 values at byte `matrix`;
;; out: rows int32 values at byte `out`. The caller scales the query so that no sum overflows.
;;
;; dot_f32(query, row, dims) → f64: Σ_d query[d] · row[d] over two float32 vectors, computed exactly as
;; ranking/vectors.ts `dotAt` does — four float64 sums, s_k over d ≡ k (mod 4), combined as
;; (s0 + s1) + (s2 + s3), the last dims % 4 products added to s0 — so its result is the same, bit for bit
;; (a product of two float32 values is exact in float64). query and row: byte offsets, 16-byte aligned.
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $query i32) (param $matrix i32) (param $rows i32) (param $stride i32) (param $out i32)
    (local $i i32) (local $d i32) (local $row i32) (local $q i32) (local $v v128) (local $acc v128)
    (block $done
      (loop $next_row
        (br_if $done (i32.ge_u (local.get $i) (local.get $rows)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $d (i32.const 0))
        (local.set $row (i32.add (local.get $matrix) (i32.mul (local.get $i) (local.get $stride))))
        (block $row_done
          (loop $next_16
            (br_if $row_done (i32.ge_u (local.get $d) (local.get $stride)))
            ;; 16 int8 components, widened to two int16x8 halves, each multiplied with 8 query values
            ;; and summed in pairs into the four lanes.
            (local.set $v (v128.load (i32.add (local.get $row) (local.get $d))))
            (local.set $q (i32.add (local.get $query) (i32.shl (local.get $d) (i32.const 1))))
            (local.set $acc (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (local.get $q)))))
            (local.set $acc (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $q)))))
            (local.set $d (i32.add (local.get $d) (i32.const 16)))
            (br $next_16)))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next_row))))
  (func (export "dot_f32") (param $query i32) (param $row i32) (param $dims i32) (result f64)
    (local $d i32) (local $end i32) (local $q v128) (local $r v128) (local $s01 v128) (local $s23 v128)
    (local $s0 f64)
    (local.set $end (i32.and (local.get $dims) (i32.const -4)))
    (block $done
      (loop $next_4
        (br_if $done (i32.ge_u (local.get $d) (local.get $end)))
        (local.set $q (v128.load (i32.add (local.get $query) (i32.shl (local.get $d) (i32.const 2)))))
        (local.set $r (v128.load (i32.add (local.get $row) (i32.shl (local.get $d) (i32.const 2)))))
        ;; lanes 0 and 1 into (s0, s1); lanes 2 and 3, moved down, into (s2, s3)
        (local.set $s01 (f64x2.add (local.get $s01)
          (f64x2.mul (f64x2.promote_low_f32x4 (local.get $q)) (f64x2.promote_low_f32x4 (local.get $r)))))
        (local.set $s23 (f64x2.add (local.get $s23)
          (f64x2.mul
            (f64x2.promote_low_f32x4
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $q) (local.get $q)))
            (f64x2.promote_low_f32x4
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $r) (local.get $r))))))
        (local.set $d (i32.add (local.get $d) (i32.const 4)))
        (br $next_4)))
    (local.set $s0 (f64x2.extract_lane 0 (local.get $s01)))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $d) (local.get $dims)))
        (local.set $s0 (f64.add (local.get $s0)
          (f64.mul
            (f64.promote_f32 (f32.load (i32.add (local.get $query) (i32.shl (local.get $d) (i32.const 2)))))
            (f64.promote_f32 (f32.load (i32.add (local.get $row) (i32.shl (local.get $d) (i32.const 2))))))))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br $tail)))
    (f64.add
      (f64.add (local.get $s0) (f64x2.extract_lane 1 (local.get $s01)))
      (f64.add (f64x2.extract_lane 0 (local.get $s23)) (f64x2.extract_lane 1 (local.get $s23)))))
)
