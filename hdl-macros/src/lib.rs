//! `#[derive(SettleBlock)]`: rust-hdl's `Block` (as `#[derive(LogicBlock)]`
//! writes it) with one change in `update_all`: the block's input ports
//! (`Signal<In, _>` fields, or arrays of them) take their new value
//! *before* the block's `update` runs, not after.
//!
//! rust-hdl settles a circuit by calling `update_all` on the top block
//! until no signal changes. With `LogicBlock`, a value written into a
//! child's input is seen by the child one pass later, so every parent ->
//! child hop of a combinational path costs a pass. With `SettleBlock` the
//! child sees it in the same pass; the fixed point (what the circuit
//! settles to) is the same, reached in fewer passes.
//!
//! Clock edges stay exact: a clock input reaches every `SettleBlock` in
//! the pass it is raised, so the flip-flops and RAMs below them (rust-hdl
//! widgets, which keep rust-hdl's order) all see the edge together one
//! pass later, on values that are all from before the edge. A block whose
//! own `update` acts on `clock.pos_edge()` must keep `LogicBlock`, or it
//! would act a pass ahead of the flip-flops.
//!
//! A block also skips its pass when nothing can have moved in it: none of
//! its inputs changed in this pass and none of its signals (its own, its
//! ports, those of the blocks inside it) changed in its last pass. Its
//! `update` is a function of those signals alone (flip-flops and RAMs
//! change only on a clock edge, which changes their clock input), so it
//! would compute what it computed last time. The block keeps that flag in
//! a field `_settle: buddy_hdl::settle::Settle` (it must have one), which
//! `has_changed` returns without walking the block's signals. A block
//! whose state changes outside its signals (a testbench poking a RAM's
//! contents) must not use `SettleBlock`.
//!
//! Fields named with a leading `_` are skipped, as by `LogicBlock`. The
//! Verilog is unchanged: `accept` visits the fields in the same order.

use proc_macro::TokenStream;
use quote::quote;
use syn::{parse_macro_input, Data, DeriveInput, Fields, Type};

/// Whether a field's type is an input port: `Signal<In, T>` or an array
/// (of arrays) of them, written with those names.
fn is_input(ty: &Type) -> bool {
    match ty {
        Type::Array(a) => is_input(&a.elem),
        Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident == "Signal"
                && matches!(&s.arguments, syn::PathArguments::AngleBracketed(args)
                    if matches!(args.args.first(), Some(syn::GenericArgument::Type(Type::Path(d)))
                        if d.path.is_ident("In")))
        }),
        _ => false,
    }
}

#[proc_macro_derive(SettleBlock)]
pub fn settle_block(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let Data::Struct(data) = &input.data else {
        return syn::Error::new_spanned(&input.ident, "SettleBlock needs a struct").to_compile_error().into();
    };
    let Fields::Named(named) = &data.fields else {
        return syn::Error::new_spanned(&input.ident, "SettleBlock needs named fields").to_compile_error().into();
    };
    let fields: Vec<_> = named
        .named
        .iter()
        .filter(|f| !f.ident.as_ref().is_some_and(|i| i.to_string().starts_with('_')))
        .collect();
    let all: Vec<_> = fields.iter().map(|f| f.ident.clone().unwrap()).collect();
    let names: Vec<String> = all.iter().map(|i| i.to_string()).collect();
    let (inputs, rest): (Vec<&syn::Field>, Vec<&syn::Field>) = fields.iter().partition(|f| is_input(&f.ty));
    let inputs: Vec<_> = inputs.iter().map(|f| f.ident.clone().unwrap()).collect();
    let rest: Vec<_> = rest.iter().map(|f| f.ident.clone().unwrap()).collect();
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics ::rust_hdl::core::block::Block for #name #ty_generics #where_clause {
            fn connect_all(&mut self) {
                ::rust_hdl::core::logic::Logic::connect(self);
                #(::rust_hdl::core::block::Block::connect_all(&mut self.#all);)*
            }
            fn update_all(&mut self) {
                use ::rust_hdl::core::block::Block;
                let mut changed = false;
                #(
                    self.#inputs.update_all();
                    changed |= self.#inputs.has_changed();
                )*
                if !changed && !self._settle.changed {
                    return;
                }
                ::rust_hdl::core::logic::Logic::update(self);
                #(
                    self.#rest.update_all();
                    changed |= self.#rest.has_changed();
                )*
                self._settle.changed = changed;
            }
            fn has_changed(&self) -> bool {
                self._settle.changed
            }
            fn accept(&self, name: &str, probe: &mut dyn ::rust_hdl::core::probe::Probe) {
                probe.visit_start_scope(name, self);
                #(::rust_hdl::core::block::Block::accept(&self.#all, #names, probe);)*
                probe.visit_end_scope(name, self);
            }
        }
    }
    .into()
}
