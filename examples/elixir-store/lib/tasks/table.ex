defmodule StorecheckExample.Tasks.Table do
  @moduledoc """
  What both eras' ETS tables share: a public named `set` whose rows are
  `{task_id, revision, task}`, every write a compare-and-swap of the revision.
  """

  def new(name) do
    :ets.new(name, [:set, :public, :named_table, read_concurrency: true, write_concurrency: true])
    :ok
  end

  def clear(name), do: :ets.delete_all_objects(name)

  def delete(name, task_id) do
    :ets.delete(name, task_id)
    :ok
  end

  @doc """
  Writes task over the row of task_id at revision rev, as revision rev + 1; false when
  the row is no longer at rev (another process wrote or deleted it first).
  """
  def replace(name, task_id, rev, task) do
    :ets.select_replace(name, [{{task_id, rev, :_}, [], [{{task_id, rev + 1, {:const, task}}}]}]) == 1
  end

  @doc """
  Deletes every row whose task doomed? holds and returns how many. A row is deleted
  only at the revision it was judged at: one written in between is judged again by the
  next call.
  """
  def delete_where(name, doomed?) do
    :ets.select(name, [{{:"$1", :"$2", :"$3"}, [], [{{:"$1", :"$2", :"$3"}}]}])
    |> Enum.filter(fn {_, _, task} -> doomed?.(task) end)
    |> Enum.map(fn {id, rev, _} -> :ets.select_delete(name, [{{id, rev, :_}, [], [true]}]) end)
    |> Enum.sum()
  end
end
