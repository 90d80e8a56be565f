-- A host of the tenant's own for its verification links and association files (issue 33): on the deployment's
-- shared host, Android before 15 lets an app claim every path, so one tenant's app could open another's links.
alter table native_apps add column link_host text;
create index native_apps_link_host on native_apps (link_host) where link_host is not null;
