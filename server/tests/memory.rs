//! Memory on both stores, with Hermes' semantics: batches of add / replace / remove by a
//! unique part of an entry, all or nothing, within each scope's character limit; a user's
//! own entries private to them; what agents propose queued for review (accepted once,
//! attributed to the agent, its run and the reviewer) unless the tenant accepts it
//! automatically; and the API's conventions.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use std::sync::Arc;

use app::api::service::MemoryService;
use app::error::ApiError;
use app::memory::{Action, Operation, ScopeKind};
use app::model::memory::ProposalOutcome;
use app::model::memory::{MemoryBatch, MemorySettings};
use app::model::{RequestContext, Role};
use common::api::Api;
use serde_json::json;
use server::store::memory::ScopeRef;
use server::workspace::memory::MemoryServiceImpl;

fn person(name: &str) -> RequestContext {
    RequestContext {
        tenant: "default".into(),
        role: Role::Operator,
        user_id: format!("id-{name}"),
        actor: name.to_owned(),
        token_id: None,
        memberships: Vec::new(),
    }
}

fn op(action: Action, content: Option<&str>, old_text: Option<&str>) -> Operation {
    Operation {
        action,
        content: content.map(str::to_owned),
        old_text: old_text.map(str::to_owned),
    }
}

fn batch(scope: ScopeKind, operations: Vec<Operation>) -> MemoryBatch {
    MemoryBatch {
        scope,
        project_id: None,
        operations,
    }
}

fn texts(scope: &app::model::memory::MemoryScope) -> Vec<&str> {
    scope
        .entries
        .iter()
        .map(|entry| entry.text.as_str())
        .collect()
}

#[tokio::test]
async fn batches_change_a_scope_all_or_nothing_within_its_limit_and_user_memory_stays_private() {
    for backend in backends::all().await {
        let name = backend.name;
        let service = MemoryServiceImpl::new(backend.store.clone());
        let memory: &dyn MemoryService = &service;
        let (ada, bob) = (person("ada"), person("bob"));
        let scope = memory
            .change_memory(
                &ada,
                batch(
                    ScopeKind::Tenant,
                    vec![
                        op(Action::Add, Some("Deploys happen on Fridays"), None),
                        op(Action::Add, Some("Staging is at staging.example"), None),
                    ],
                ),
            )
            .await
            .unwrap();
        assert_eq!(
            texts(&scope),
            vec!["Deploys happen on Fridays", "Staging is at staging.example"],
            "{name}"
        );
        assert_eq!((scope.used, scope.limit), (25 + 3 + 29, 2200));
        assert_eq!(scope.entries[0].author, "ada");
        assert_eq!(scope.entries[0].source, "operator");

        // Replace by a unique part; a batch that fails anywhere changes nothing.
        let scope = memory
            .change_memory(
                &ada,
                batch(
                    ScopeKind::Tenant,
                    vec![op(
                        Action::Replace,
                        Some("Deploys happen on Tuesdays"),
                        Some("Fridays"),
                    )],
                ),
            )
            .await
            .unwrap();
        assert_eq!(texts(&scope)[0], "Deploys happen on Tuesdays");
        let refused = memory
            .change_memory(
                &ada,
                batch(
                    ScopeKind::Tenant,
                    vec![
                        op(Action::Remove, None, Some("Staging")),
                        op(Action::Remove, None, Some("nothing like it")),
                    ],
                ),
            )
            .await;
        assert!(
            matches!(&refused, Err(ApiError::BadRequest(message)) if message.starts_with("operations[1].old_text")),
            "{refused:?}"
        );
        let full = memory
            .change_memory(
                &ada,
                batch(
                    ScopeKind::Tenant,
                    vec![op(Action::Add, Some(&"x".repeat(2200)), None)],
                ),
            )
            .await;
        assert!(
            matches!(&full, Err(ApiError::BadRequest(message)) if message.contains("of 2200 characters")),
            "{full:?}"
        );
        assert_eq!(
            memory
                .memory(&ada, ScopeKind::Tenant, None)
                .await
                .unwrap()
                .entries
                .len(),
            2,
            "{name}"
        );

        // A user's own memory: theirs alone; its limit is Hermes' user profile's.
        let own = memory
            .change_memory(
                &ada,
                batch(
                    ScopeKind::User,
                    vec![op(Action::Add, Some("Prefers short answers"), None)],
                ),
            )
            .await
            .unwrap();
        assert_eq!(own.limit, 1375);
        assert!(
            memory
                .memory(&bob, ScopeKind::User, None)
                .await
                .unwrap()
                .entries
                .is_empty(),
            "{name}"
        );
        let id = own.entries[0].id.clone();
        assert!(
            matches!(
                memory.memory_entry(&bob, &id).await,
                Err(ApiError::NotFound(_))
            ),
            "{name}"
        );
        assert!(matches!(
            memory.delete_memory(&bob, &id).await,
            Err(ApiError::NotFound(_))
        ));
        let edited = memory
            .edit_memory(&ada, &id, "Prefers short, plain answers")
            .await
            .unwrap();
        assert_eq!(edited.text, "Prefers short, plain answers");
        memory.delete_memory(&ada, &id).await.unwrap();
        assert!(
            memory
                .memory(&ada, ScopeKind::User, None)
                .await
                .unwrap()
                .entries
                .is_empty()
        );

        // A project scope names an existing project.
        let no_project = memory.memory(&ada, ScopeKind::Project, None).await;
        assert!(
            matches!(&no_project, Err(ApiError::BadRequest(message)) if message.starts_with("project_id"))
        );
        let unknown = memory.memory(&ada, ScopeKind::Project, Some("nope")).await;
        assert!(
            matches!(&unknown, Err(ApiError::BadRequest(message)) if message.starts_with("project_id"))
        );
    }
}

#[tokio::test]
async fn what_an_agent_proposes_waits_for_review_unless_the_tenant_accepts_it_automatically() {
    for backend in backends::all().await {
        let name = backend.name;
        let service = Arc::new(MemoryServiceImpl::new(backend.store.clone()));
        let memory: &dyn MemoryService = service.as_ref();
        let ada = person("ada");
        let tenant = ScopeRef {
            kind: ScopeKind::Tenant,
            id: String::new(),
        };
        memory
            .change_memory(
                &ada,
                batch(
                    ScopeKind::Tenant,
                    vec![op(Action::Add, Some("Uses PostgreSQL 16"), None)],
                ),
            )
            .await
            .unwrap();

        let ProposalOutcome::Queued { proposal } = service
            .propose(
                "default",
                &tenant,
                vec![op(Action::Add, Some("The CI runs on two cores"), None)],
                "agent demo",
                Some("run-1"),
            )
            .await
            .unwrap()
        else {
            panic!("{name}: queued for review by default")
        };
        assert_eq!(
            texts(&memory.memory(&ada, ScopeKind::Tenant, None).await.unwrap()),
            vec!["Uses PostgreSQL 16"]
        );
        let pending = memory.proposals(&ada, Some("pending")).await.unwrap();
        assert_eq!(pending.len(), 1, "{name}");
        assert_eq!(pending[0].run_id.as_deref(), Some("run-1"));

        let accepted = memory
            .decide_proposal(&ada, &proposal.id, true)
            .await
            .unwrap();
        assert_eq!(
            (accepted.state.as_str(), accepted.reviewed_by.as_deref()),
            ("accepted", Some("ada")),
            "{name}"
        );
        let scope = memory.memory(&ada, ScopeKind::Tenant, None).await.unwrap();
        let added = scope
            .entries
            .iter()
            .find(|entry| entry.text == "The CI runs on two cores")
            .unwrap();
        assert_eq!(
            (added.source.as_str(), added.author.as_str()),
            ("agent", "agent demo, approved by ada"),
            "{name}"
        );
        // Decided once.
        let again = memory.decide_proposal(&ada, &proposal.id, true).await;
        assert!(
            matches!(again, Err(ApiError::Conflict(_))),
            "{name}: {again:?}"
        );

        // Rejected: nothing changes.
        let ProposalOutcome::Queued { proposal: second } = service
            .propose(
                "default",
                &tenant,
                vec![op(Action::Remove, None, Some("PostgreSQL"))],
                "agent demo",
                None,
            )
            .await
            .unwrap()
        else {
            panic!("queued")
        };
        assert_eq!(
            memory
                .decide_proposal(&ada, &second.id, false)
                .await
                .unwrap()
                .state,
            "rejected"
        );
        assert_eq!(
            memory
                .memory(&ada, ScopeKind::Tenant, None)
                .await
                .unwrap()
                .entries
                .len(),
            2
        );

        // One that no longer applies when accepted is decided, saying why.
        let ProposalOutcome::Queued { proposal: stale } = service
            .propose(
                "default",
                &tenant,
                vec![op(
                    Action::Replace,
                    Some("Uses PostgreSQL 17"),
                    Some("PostgreSQL 16"),
                )],
                "agent demo",
                None,
            )
            .await
            .unwrap()
        else {
            panic!("queued")
        };
        memory
            .change_memory(
                &ada,
                batch(
                    ScopeKind::Tenant,
                    vec![op(Action::Remove, None, Some("PostgreSQL 16"))],
                ),
            )
            .await
            .unwrap();
        let decided = memory.decide_proposal(&ada, &stale.id, true).await.unwrap();
        assert_eq!(decided.state, "rejected", "{name}");
        assert!(decided.outcome.unwrap().starts_with("could not apply"));

        // A proposal that could never apply is refused to the agent, not queued.
        let hopeless = service
            .propose(
                "default",
                &tenant,
                vec![op(Action::Remove, None, Some("no such fact"))],
                "agent demo",
                None,
            )
            .await;
        assert!(matches!(hopeless, Err(ApiError::BadRequest(_))), "{name}");

        // Accepted automatically once the tenant says so.
        memory
            .set_memory_settings(&ada, MemorySettings { auto_accept: true })
            .await
            .unwrap();
        let applied = service
            .propose(
                "default",
                &tenant,
                vec![op(Action::Add, Some("Releases are tagged"), None)],
                "agent demo",
                None,
            )
            .await
            .unwrap();
        let ProposalOutcome::Applied { memory: scope } = applied else {
            panic!("{name}: applied at once")
        };
        let entry = scope
            .entries
            .iter()
            .find(|entry| entry.text == "Releases are tagged")
            .unwrap();
        assert_eq!(entry.author, "agent demo (accepted automatically)");
    }
}

#[tokio::test]
async fn the_memory_api_names_bad_fields_and_keeps_settings_for_owners() {
    for backend in backends::all().await {
        let api = Api::start(&["--db", &backend.url]).await;
        let (status, scope) = api
            .post("/api/v1/memory", json!({"scope": "tenant", "operations": [{"action": "add", "content": "Fact one"}]}))
            .await;
        assert_eq!(status, 200, "{scope}");
        let id = scope["entries"][0]["id"].as_str().unwrap().to_owned();
        let (_, found) = api.get("/api/v1/memory?q=FACT").await;
        assert_eq!(
            found["entries"].as_array().map(Vec::len),
            Some(1),
            "{found}"
        );
        let (_, found) = api.get("/api/v1/memory?q=nothing%20like%20it").await;
        assert_eq!(
            found["entries"].as_array().map(Vec::len),
            Some(0),
            "{found}"
        );
        assert_eq!(
            found["used"], scope["used"],
            "how full the scope is stays as it is"
        );
        let (status, refused) = api
            .post(
                "/api/v1/memory",
                json!({"scope": "everywhere", "operations": []}),
            )
            .await;
        assert_eq!(status, 400, "{refused}");
        let (status, refused) = api
            .post(
                "/api/v1/memory",
                json!({"scope": "tenant", "operations": [{"action": "replace", "content": "x"}]}),
            )
            .await;
        assert_eq!(status, 400);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("operations[0].old_text"),
            "{refused}"
        );
        assert_eq!(api.get("/api/v1/memory?scope=bogus").await.0, 400);
        let (status, read) = api.get(&format!("/api/v1/memory/{id}")).await;
        assert_eq!((status, read["text"].as_str()), (200, Some("Fact one")));
        let edited = api
            .client
            .patch(api.url(&format!("/api/v1/memory/{id}")))
            .json(&json!({"text": "Fact one, revised"}))
            .send()
            .await
            .unwrap();
        assert_eq!(edited.status(), 200);
        let (_, review) = api.get("/api/v1/memory/review").await;
        assert_eq!(review["proposals"], json!([]));
        assert_eq!(
            api.post("/api/v1/memory/review/nope/accept", json!(null))
                .await
                .0,
            404
        );

        // Settings: owners change them; operators read them.
        let put = api
            .client
            .put(api.url("/api/v1/memory/settings"))
            .json(&json!({"auto_accept": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(put.status(), 200);
        let operator =
            common::client_with(&api.server.user_with_token("otto", "default", "operator"));
        let refused = operator
            .put(api.url("/api/v1/memory/settings"))
            .json(&json!({"auto_accept": false}))
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 403);
        let read = operator
            .get(api.url("/api/v1/memory/settings"))
            .send()
            .await
            .unwrap();
        assert_eq!(
            read.json::<serde_json::Value>().await.unwrap()["auto_accept"],
            true
        );

        let deleted = api
            .client
            .delete(api.url(&format!("/api/v1/memory/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(deleted.status(), 204);
        let (_, audit) = api.get("/api/v1/audit").await;
        let text = audit.to_string();
        for action in [
            "memory.change",
            "memory.edit",
            "memory.delete",
            "memory.settings",
        ] {
            assert!(text.contains(action), "{action}: {text}");
        }
        assert!(!text.contains("Fact one"), "the audit keeps ids only");
    }
}

#[tokio::test]
async fn what_is_proposed_for_a_users_own_memory_is_reviewed_by_that_user_alone() {
    for backend in backends::all().await {
        let name = backend.name;
        let service = Arc::new(MemoryServiceImpl::new(backend.store.clone()));
        let memory: &dyn MemoryService = service.as_ref();
        let (ada, bob) = (person("ada"), person("bob"));
        let mine = ScopeRef {
            kind: ScopeKind::User,
            id: ada.user_id.clone(),
        };
        let ProposalOutcome::Queued { proposal } = service
            .propose(
                "default",
                &mine,
                vec![op(Action::Add, Some("My doctor is Dr Lee"), None)],
                "agent demo",
                None,
            )
            .await
            .unwrap()
        else {
            panic!("{name}: queued for review by default")
        };
        // Another member of the tenant neither reads it nor decides it.
        assert!(
            memory.proposals(&bob, None).await.unwrap().is_empty(),
            "{name}"
        );
        let refused = memory
            .decide_proposal(&bob, &proposal.id, true)
            .await
            .unwrap_err();
        assert!(
            matches!(refused, ApiError::NotFound(_)),
            "{name}: {refused}"
        );
        // Its user does.
        assert_eq!(memory.proposals(&ada, None).await.unwrap().len(), 1);
        let accepted = memory
            .decide_proposal(&ada, &proposal.id, true)
            .await
            .unwrap();
        assert_eq!(accepted.state, "accepted", "{name}");
    }
}
