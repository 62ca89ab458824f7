(* Binary trees in OCaml: nodes bump-allocated in the minor heap, inlined by ocamlopt.

   Lesson: a minor collection copies only what survives; the short-lived trees die in the minor
   heap and are never touched, and a single-threaded runtime needs no synchronisation at all.

   Output (stdout): the benchmarks game's check lines. GC figures: OCAMLRUNPARAM=v=0x400 makes the
   runtime print its GC counters at exit on stderr (OCaml 4 reports no pause times; its runtime
   events came with OCaml 5). *)

type tree = Empty | Node of tree * tree

let rec bottom_up_tree depth =
  if depth > 0 then Node (bottom_up_tree (depth - 1), bottom_up_tree (depth - 1))
  else Node (Empty, Empty)

let rec item_check = function Empty -> 0 | Node (l, r) -> 1 + item_check l + item_check r

let min_depth = 4

let () =
  let requested =
    match Sys.argv with
    | [| _; arg |] -> ( match int_of_string_opt arg with Some d when d >= 0 && d <= 30 -> d | _ -> -1)
    | _ -> -1
  in
  if requested < 0 then (
    prerr_endline ("usage: " ^ Sys.argv.(0) ^ " DEPTH (an integer from 0 to 30)");
    exit 2);
  let max_depth = max (min_depth + 2) requested in
  let stretch_depth = max_depth + 1 in
  Printf.printf "stretch tree of depth %d\t check: %d\n" stretch_depth
    (item_check (bottom_up_tree stretch_depth));
  let long_lived = bottom_up_tree max_depth in
  let depth = ref min_depth in
  while !depth <= max_depth do
    let iterations = 1 lsl (max_depth - !depth + min_depth) in
    let check = ref 0 in
    for _ = 1 to iterations do
      check := !check + item_check (bottom_up_tree !depth)
    done;
    Printf.printf "%d\t trees of depth %d\t check: %d\n" iterations !depth !check;
    depth := !depth + 2
  done;
  Printf.printf "long lived tree of depth %d\t check: %d\n" max_depth (item_check long_lived);
  Printf.eprintf "binary-trees: allocator OCaml %s runtime\n" Sys.ocaml_version
