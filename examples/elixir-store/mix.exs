defmodule StorecheckExample.MixProject do
  # A mix project without dependencies, so that the example also runs the way a Phoenix
  # or ConduitMCP application starts its shim: mix compile, then
  # mix run --no-compile --no-halt shim.exs (docs/wire.md: a compile prints to stdout).
  use Mix.Project

  def project, do: [app: :storecheck_example, version: "0.1.0", elixir: "~> 1.14", deps: []]

  def application, do: [extra_applications: [:crypto]]
end
