defmodule StorecheckExample.Tasks.Store do
  @moduledoc """
  The legacy era's store behaviour (MCP 2025-11-25), with the callbacks of ConduitMCP's
  `ConduitMcp.Tasks.Store`: a task is a map with string keys, stored verbatim; the store
  adds "task_id", "status" and "created_at" on create/2 and reads no other key but
  "owner" (for list/1's owner scope).

  `cancel/1`, `cleanup/1` and `update_if/3` are optional, as in ConduitMCP (the facade
  falls back when a store lacks them); `update_if/3` is the conditional update a facade
  needs to keep a finished task finished under races.
  """

  @type task_id :: String.t()
  @type task :: %{optional(String.t()) => term()}
  @typedoc "Whose rows list/1 returns: every row, unowned rows only, or a principal's plus unowned ones."
  @type scope :: :any | :anonymous | {:principal, String.t()}
  @type list_opt ::
          {:status, String.t() | nil}
          | {:limit, integer() | nil}
          | {:owner, scope}
          | {:require_owner, boolean()}
  @type error :: {:error, :not_found | :exists | :conflict | :invalid}

  @callback create(task_id, metadata :: task) :: {:ok, task} | error
  @callback get(task_id) :: {:ok, task} | error
  @callback update(task_id, changes :: task) :: {:ok, task} | error
  @callback delete(task_id) :: :ok
  @callback list([list_opt]) :: [task]
  @callback cancel(task_id) :: {:ok, task} | error
  @callback cleanup(ttl_ms :: non_neg_integer()) :: non_neg_integer()
  @callback update_if(task_id, allowed :: [String.t()], changes :: task) :: {:ok, task} | error
  @optional_callbacks cancel: 1, cleanup: 1, update_if: 3
end

defmodule StorecheckExample.Ext.Tasks.Store do
  @moduledoc """
  The modern era's store behaviour (the 2026-07-28 tasks extension): a task is a record
  whose "version" the store keeps (1 after create, +1 on every swap); the lifecycle lives
  in the facade and reaches the store as compare-and-swap writes. There is no list: task
  ids are bearer tokens. A caller is the system (unscoped), anonymous, or a principal.
  """

  @type task_id :: String.t()
  @type task :: %{String.t() => term()}
  @type caller :: :system | :anonymous | {:principal, String.t()}
  @type error :: {:error, :not_found | :exists | :conflict | :invalid}

  @callback create(task) :: {:ok, task} | error
  @callback get(task_id, caller) :: {:ok, task} | error
  @callback swap(caller, expected_version :: integer(), task) :: {:ok, task} | error
  @callback delete(task_id) :: :ok
  @callback sweep() :: non_neg_integer()
end

defmodule StorecheckExample.Tasks.Clock do
  @moduledoc """
  The stores' clock: the system clock in milliseconds, unless a test fixed it (the wire's
  `clock` op). One ETS row, so every process reads the same time.
  """

  @table :storecheck_example_clock

  def start do
    :ets.new(@table, [:set, :public, :named_table, read_concurrency: true])
    :ok
  end

  @doc "Fixes the clock at now_ms; nil returns to the system clock."
  def set(now_ms), do: :ets.insert(@table, {:now, now_ms})

  def now_ms do
    case :ets.lookup(@table, :now) do
      [{:now, ms}] when is_integer(ms) -> ms
      _ -> System.system_time(:millisecond)
    end
  end
end

defmodule StorecheckExample.Tasks.Owner do
  @moduledoc "The owner truth table (docs/spec.md section 0), shared by both eras' stores."

  @doc """
  Whether a row with owner may be seen by who (a scope or a caller). owner is "" for an
  unowned row and nil for a non-string owner, which no principal can present.
  """
  def visible?(_owner, scope, _require_owner) when scope in [:any, :system], do: true
  def visible?(nil, _scope, _require_owner), do: false
  def visible?("", _scope, require_owner), do: not require_owner
  def visible?(owner, {:principal, id}, _require_owner), do: owner == id
  def visible?(_owner, _scope, _require_owner), do: false

  @doc "The owner of a task map: \"\" when absent, null or empty; nil when not a string."
  def of(task) do
    case Map.get(task, "owner") do
      nil -> ""
      o when is_binary(o) -> o
      _ -> nil
    end
  end

  @doc "Ids are opaque: 1..512 bytes of valid UTF-8 without NUL (S-ID-2)."
  def valid_id?(id) do
    is_binary(id) and byte_size(id) in 1..512 and String.valid?(id) and
      not String.contains?(id, <<0>>)
  end
end
