;; Dot products of one int16 query with every row of an int8 matrix, four i32 lanes at a time
;; (WebAssembly SIMD). Source of int8-dots.wasm: `npm run build:wasm` (scripts/build-wasm.mjs).
;;
;; dots(query, matrix, rows, stride, out): for each row i < rows,
;;   out[i] = Σ_d query[d] · matrix[i·stride + d]   (d < stride; stride a multiple of 16)
;; query: stride int16 values at byte `query`; matrix: rows·stride int8 values at byte `matrix`;
;; out: rows int32 values at byte `out`. The caller scales the query so that no sum overflows.
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
)
