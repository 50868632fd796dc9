# The storecheck shim of the Elixir example store (docs/wire.md). Plain Elixir:
#   storecheck run --exec "elixir examples/elixir-store/shim.exs"
# or, in a mix project (mix compile first: a compile prints to stdout):
#   storecheck run --exec "sh -c 'cd examples/elixir-store && exec mix run --no-compile --no-halt shim.exs'"
# It serves stdin and stdout until stdin closes. Run as a script, it loads the store's
# files itself; under mix they are already compiled.
unless Code.ensure_loaded?(StorecheckExample.Shim) do
  for file <- ~w(json.ex tasks/store.ex tasks/table.ex tasks/ets_store.ex tasks/facade.ex shim.ex),
      do: Code.require_file(Path.join([__DIR__, "lib", file]))
end

StorecheckExample.Shim.main()

# Exit 0 when stdin has closed, under `mix run --no-halt` too.
System.halt(0)
