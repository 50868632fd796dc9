defmodule StorecheckExample.Tasks.EtsStore do
  @moduledoc """
  The legacy store in one ETS `set` table, the way ConduitMCP's default
  `ConduitMcp.Tasks.EtsStore` keeps tasks: public, so that every request process reads
  and writes it directly, rows copied in and out.

  Where EtsStore overwrites, this store follows docs/spec.md: create/2 uses
  `:ets.insert_new/2`, so an existing id is refused (L-CREATE-2). Rows are
  `{task_id, revision, task}`: every write is a compare-and-swap of the revision with
  `:ets.select_replace/2`, retried when another process wrote first, because a lookup
  followed by an insert loses one of two concurrent updates (L-CONC-1) and lets a
  cancel and a completion both win.
  """

  @behaviour StorecheckExample.Tasks.Store

  alias StorecheckExample.Tasks.{Clock, Owner, Table}

  @table :storecheck_example_legacy_tasks
  @terminal ["completed", "failed", "cancelled"]

  def start, do: Table.new(@table)
  def reset, do: Table.clear(@table)

  @impl true
  def create(task_id, metadata) do
    task =
      Map.merge(metadata, %{
        "task_id" => task_id,
        "status" => "working",
        "created_at" => Clock.now_ms()
      })

    cond do
      not Owner.valid_id?(task_id) -> {:error, :invalid}
      :ets.insert_new(@table, {task_id, 0, task}) -> {:ok, task}
      true -> {:error, :exists}
    end
  end

  @impl true
  def get(task_id) do
    case :ets.lookup(@table, task_id) do
      [{_, _, task}] -> {:ok, task}
      [] -> {:error, :not_found}
    end
  end

  @impl true
  def update(task_id, changes), do: write(task_id, fn task -> {:ok, Map.merge(task, changes)} end)

  @impl true
  def update_if(task_id, allowed, changes) do
    write(task_id, fn task ->
      if status(task) in allowed, do: {:ok, Map.merge(task, changes)}, else: {:error, :conflict}
    end)
  end

  @impl true
  def cancel(task_id), do: update(task_id, %{"status" => "cancelled"})

  @impl true
  def delete(task_id), do: Table.delete(@table, task_id)

  @impl true
  def list(opts) do
    status = Keyword.get(opts, :status)
    scope = Keyword.get(opts, :owner, :any)
    require_owner = Keyword.get(opts, :require_owner, false)

    keep = fn task ->
      (status == nil or status(task) == status) and
        Owner.visible?(Owner.of(task), scope, require_owner)
    end

    case Keyword.get(opts, :limit) do
      limit when is_integer(limit) and limit <= 0 -> []
      limit -> :ets.select(@table, [{{:_, :_, :"$1"}, [], [:"$1"]}]) |> Stream.filter(keep) |> take(limit)
    end
  end

  @impl true
  def cleanup(ttl_ms) do
    now = Clock.now_ms()

    Table.delete_where(@table, fn task ->
      created = Map.get(task, "created_at")
      status(task) in @terminal and is_integer(created) and now - created > ttl_ms
    end)
  end

  defp take(stream, nil), do: Enum.to_list(stream)
  defp take(stream, limit), do: Enum.take(stream, limit)

  @doc "A task's status; one without a string status counts as working (L-CLEAN-1)."
  def status(task) do
    case Map.get(task, "status") do
      s when is_binary(s) -> s
      _ -> "working"
    end
  end

  # change's answer written over the row at the revision it read, or change's error.
  defp write(task_id, change) do
    with [{_, rev, task}] <- :ets.lookup(@table, task_id),
         {:ok, next} <- change.(task) do
      if Table.replace(@table, task_id, rev, next), do: {:ok, next}, else: write(task_id, change)
    else
      [] -> {:error, :not_found}
      {:error, _} = error -> error
    end
  end
end

defmodule StorecheckExample.Ext.Tasks.EtsStore do
  @moduledoc """
  The modern store in one ETS `set` table, rows `{task_id, version, task}`: swap/3 is a
  compare-and-swap of the version by `:ets.select_replace/2`, so of concurrent swaps
  from one version exactly one wins (M-SWAP-4). An expired task (created_at + ttl past)
  is missing to every read and write but keeps its id until sweep/0 removes it.
  """

  @behaviour StorecheckExample.Ext.Tasks.Store

  alias StorecheckExample.Tasks.{Clock, Owner, Table}

  @table :storecheck_example_modern_tasks
  @immutable ["task_id", "owner", "created_at_ms"]

  def start, do: Table.new(@table)
  def reset, do: Table.clear(@table)

  @impl true
  def create(%{"task_id" => id} = task) do
    task = Map.put(task, "version", 1)

    cond do
      not Owner.valid_id?(id) -> {:error, :invalid}
      :ets.insert_new(@table, {id, 1, task}) -> {:ok, task}
      true -> {:error, :exists}
    end
  end

  @impl true
  def get(task_id, caller) do
    case live(task_id, caller) do
      {:ok, _, task} -> {:ok, task}
      error -> error
    end
  end

  @impl true
  def swap(caller, expected, %{"task_id" => id} = next) do
    with {:ok, version, current} <- live(id, caller),
         :ok <- immutable(current, next),
         :ok <- if(version == expected, do: :ok, else: {:error, :conflict}) do
      next = Map.put(next, "version", expected + 1)

      # Another swap or a delete came first: judged again on what is there now.
      if Table.replace(@table, id, expected, next), do: {:ok, next}, else: swap(caller, expected, next)
    end
  end

  @impl true
  def delete(task_id), do: Table.delete(@table, task_id)

  @impl true
  def sweep do
    now = Clock.now_ms()
    Table.delete_where(@table, &expired?(&1, now))
  end

  # The row of a task the caller may see and that has not expired; not_found otherwise,
  # the same answer for missing, expired and foreign (M-SWAP-2).
  defp live(task_id, caller) do
    with [{_, version, task}] <- :ets.lookup(@table, task_id),
         false <- expired?(task, Clock.now_ms()),
         true <- Owner.visible?(task["owner"] || "", caller, false) do
      {:ok, version, task}
    else
      _ -> {:error, :not_found}
    end
  end

  defp immutable(current, next) do
    if Enum.all?(@immutable, &(current[&1] == next[&1])), do: :ok, else: {:error, :invalid}
  end

  defp expired?(%{"ttl_ms" => ttl, "created_at_ms" => created}, now) when is_integer(ttl),
    do: now >= created + ttl

  defp expired?(_, _), do: false
end
