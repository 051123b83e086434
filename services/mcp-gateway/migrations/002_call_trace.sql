-- The record of the call an approval let run (issue 33, item 6): the dashboard links the approval to
-- both of its records, the decision's and the call's.
alter table mcp_approvals add column call_trace text;
