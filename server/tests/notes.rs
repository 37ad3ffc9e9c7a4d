//! Notes on both stores: written, searched (words in their other forms, never read as
//! query syntax, never across tenants), filtered by tag, paged, edited with every version
//! kept, a stale edit refused, an earlier version restored, deleted — and over HTTP with
//! the API's conventions (400 naming the field, 404, 409, the audit trail).

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use std::sync::Arc;

use app::api::service::NotesService;
use app::error::ApiError;
use app::model::notes::{NewNote, NoteEdit, NoteQuery};
use app::model::{RequestContext, Role};
use common::api::Api;
use serde_json::json;
use server::workspace::notes::NotesServiceImpl;

fn operator(tenant: &str, name: &str) -> RequestContext {
    RequestContext {
        tenant: tenant.to_owned(),
        role: Role::Operator,
        user_id: format!("id-{name}"),
        actor: name.to_owned(),
        token_id: None,
        memberships: Vec::new(),
    }
}

fn new_note(title: &str, body: &str, tags: &[&str]) -> NewNote {
    NewNote {
        title: title.to_owned(),
        body: body.to_owned(),
        tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
        project_id: None,
    }
}

fn search(q: &str) -> NoteQuery {
    NoteQuery {
        q: Some(q.to_owned()),
        ..NoteQuery::default()
    }
}

async fn titles(
    notes: &Arc<dyn NotesService>,
    context: &RequestContext,
    query: NoteQuery,
) -> Vec<String> {
    notes
        .list_notes(context, &query)
        .await
        .unwrap()
        .notes
        .into_iter()
        .map(|note| note.title)
        .collect()
}

#[tokio::test]
async fn search_finds_words_in_their_other_forms_ranks_titles_first_and_stays_in_its_tenant() {
    for backend in backends::all().await {
        let name = backend.name;
        backend.store.create_tenant("acme", 0).await.unwrap();
        backend.store.create_tenant("evil", 0).await.unwrap();
        let notes: Arc<dyn NotesService> = Arc::new(NotesServiceImpl::new(backend.store.clone()));
        let ada = operator("acme", "ada");
        let eve = operator("evil", "eve");
        notes
            .create_note(
                &ada,
                new_note(
                    "Runbook",
                    "How we deploy: build, then deployment to staging.",
                    &["ops"],
                ),
            )
            .await
            .unwrap();
        notes
            .create_note(
                &ada,
                new_note("Deploying on Fridays", "Don't.", &["policy"]),
            )
            .await
            .unwrap();
        notes
            .create_note(&ada, new_note("Lunch", "Soup on Tuesdays.", &[]))
            .await
            .unwrap();
        notes
            .create_note(
                &eve,
                new_note("Deploy secrets", "evil's own deploy notes", &[]),
            )
            .await
            .unwrap();

        // "deploying" finds "deploy" and "deployment"; the title match ranks first.
        let found = titles(&notes, &ada, search("deploying")).await;
        assert_eq!(found, vec!["Deploying on Fridays", "Runbook"], "{name}");
        // Every word must be found; prefixes count.
        assert_eq!(
            titles(&notes, &ada, search("stag deplo")).await,
            vec!["Runbook"],
            "{name}"
        );
        assert!(
            titles(&notes, &ada, search("deploy soup")).await.is_empty(),
            "{name}"
        );
        // Another tenant's notes are never found.
        assert_eq!(
            titles(&notes, &eve, search("deploy")).await,
            vec!["Deploy secrets"],
            "{name}"
        );
        // Query syntax of either database is just separators.
        for hostile in [
            r#"deploy" OR "x"#,
            "deploy*",
            "NEAR(deploy",
            "deploy:*|!",
            "'; DROP TABLE notes; --",
            "\"",
            "(",
            "&&&",
        ] {
            let listed = notes.list_notes(&ada, &search(hostile)).await;
            assert!(listed.is_ok(), "{name} {hostile:?}: {listed:?}");
        }
        // A search shows where it found the word.
        let listed = notes.list_notes(&ada, &search("staging")).await.unwrap();
        assert!(
            listed.notes[0]
                .snippet
                .as_deref()
                .unwrap()
                .contains("staging"),
            "{name}"
        );
        // Tags filter; a search with no words lists everything, newest first.
        let tagged = NoteQuery {
            tag: Some("OPS".into()),
            ..NoteQuery::default()
        };
        assert_eq!(
            titles(&notes, &ada, tagged).await,
            vec!["Runbook"],
            "{name}"
        );
        assert_eq!(
            titles(&notes, &ada, search("  ")).await,
            vec!["Lunch", "Deploying on Fridays", "Runbook"],
            "{name}"
        );
    }
}

#[tokio::test]
async fn lists_page_through_every_note_once() {
    for backend in backends::all().await {
        let name = backend.name;
        let notes: Arc<dyn NotesService> = Arc::new(NotesServiceImpl::new(backend.store.clone()));
        let ada = operator("default", "ada");
        for n in 0..7 {
            notes
                .create_note(&ada, new_note(&format!("Note {n}"), "shared word", &[]))
                .await
                .unwrap();
        }
        for q in [None, Some("shared")] {
            let mut seen = Vec::new();
            let mut offset = Some(0);
            while let Some(at) = offset {
                let query = NoteQuery {
                    q: q.map(str::to_owned),
                    offset: Some(at),
                    limit: Some(3),
                    ..NoteQuery::default()
                };
                let page = notes.list_notes(&ada, &query).await.unwrap();
                assert!(page.notes.len() <= 3);
                seen.extend(page.notes.into_iter().map(|note| note.title));
                offset = page.next_offset;
            }
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), 7, "{name} {q:?}: {seen:?}");
        }
    }
}

#[tokio::test]
async fn every_edit_is_a_version_a_stale_edit_is_refused_and_an_old_version_comes_back() {
    for backend in backends::all().await {
        let name = backend.name;
        let notes: Arc<dyn NotesService> = Arc::new(NotesServiceImpl::new(backend.store.clone()));
        let ada = operator("default", "ada");
        let bob = operator("default", "bob");
        let note = notes
            .create_note(&ada, new_note("Plan", "first draft", &["a"]))
            .await
            .unwrap();
        assert_eq!(note.version, 1);
        let edit = |body: &str, base| NoteEdit {
            body: Some(body.to_owned()),
            base_version: base,
            ..NoteEdit::default()
        };
        let second = notes
            .edit_note(&bob, &note.id, edit("second draft", Some(1)))
            .await
            .unwrap();
        assert_eq!(
            (
                second.version,
                second.updated_by.as_str(),
                second.created_by.as_str()
            ),
            (2, "bob", "ada")
        );
        assert_eq!(second.tags, vec!["a"], "{name}: fields not given stay");

        // Ada still has version 1 open: her save is refused, nothing is lost.
        let stale = notes
            .edit_note(&ada, &note.id, edit("ada's draft", Some(1)))
            .await;
        assert!(
            matches!(&stale, Err(ApiError::Conflict(message)) if message.contains("version 2")),
            "{name}: {stale:?}"
        );
        assert_eq!(
            notes.get_note(&ada, &note.id).await.unwrap().body,
            "second draft"
        );

        let versions = notes.note_versions(&ada, &note.id).await.unwrap();
        assert_eq!(
            versions.iter().map(|v| v.version).collect::<Vec<_>>(),
            vec![2, 1],
            "{name}"
        );
        assert_eq!(
            notes.note_version(&ada, &note.id, 1).await.unwrap().body,
            "first draft"
        );
        let restored = notes.restore_note(&ada, &note.id, 1).await.unwrap();
        assert_eq!(
            (restored.version, restored.body.as_str()),
            (3, "first draft"),
            "{name}"
        );
        // The search index follows the edits.
        assert_eq!(
            titles(&notes, &ada, search("first")).await,
            vec!["Plan"],
            "{name}"
        );
        assert!(
            titles(&notes, &ada, search("second")).await.is_empty(),
            "{name}"
        );

        // Bad input is refused naming the field; unknown ids are not found.
        let empty = notes.create_note(&ada, new_note(" ", "", &[])).await;
        assert!(
            matches!(&empty, Err(ApiError::BadRequest(message)) if message.starts_with("title")),
            "{empty:?}"
        );
        let tags = notes
            .create_note(&ada, new_note("x", "", &["<script>"]))
            .await;
        assert!(
            matches!(&tags, Err(ApiError::BadRequest(message)) if message.starts_with("tags")),
            "{tags:?}"
        );
        let project = notes
            .create_note(
                &ada,
                NewNote {
                    project_id: Some("nope".into()),
                    ..new_note("x", "", &[])
                },
            )
            .await;
        assert!(
            matches!(&project, Err(ApiError::BadRequest(message)) if message.starts_with("project_id")),
            "{project:?}"
        );
        let big = notes
            .create_note(
                &ada,
                new_note("x", &"b".repeat(app::model::notes::BODY_MOST + 1), &[]),
            )
            .await;
        assert!(
            matches!(&big, Err(ApiError::BadRequest(message)) if message.starts_with("body")),
            "{big:?}"
        );
        assert!(matches!(
            notes.note_version(&ada, &note.id, 9).await,
            Err(ApiError::NotFound(_))
        ));
        assert!(matches!(
            notes.get_note(&operator("evil", "eve"), &note.id).await,
            Err(ApiError::NotFound(_))
        ));

        notes.delete_note(&ada, &note.id).await.unwrap();
        assert!(matches!(
            notes.get_note(&ada, &note.id).await,
            Err(ApiError::NotFound(_))
        ));
        assert!(matches!(
            notes.note_versions(&ada, &note.id).await,
            Err(ApiError::NotFound(_))
        ));
        assert!(
            titles(&notes, &ada, search("first")).await.is_empty(),
            "{name}"
        );
        assert!(matches!(
            notes.delete_note(&ada, &note.id).await,
            Err(ApiError::NotFound(_))
        ));
    }
}

#[tokio::test]
async fn the_notes_api_speaks_json_names_bad_fields_and_is_audited() {
    for backend in backends::all().await {
        let api = Api::start(&["--db", &backend.url]).await;
        let (status, created) = api
            .post(
                "/api/v1/notes",
                json!({"title": "Runbook", "body": "# Deploy\n\nSteps.", "tags": ["ops"]}),
            )
            .await;
        assert_eq!(status, 201, "{created}");
        let id = created["id"].as_str().unwrap();
        // Written by a token: the token is named beside its user.
        assert!(
            created["created_by"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{} (token ", common::TEST_USER)),
            "{created}"
        );

        let (status, found) = api.get("/api/v1/notes?q=deploy").await;
        assert_eq!(status, 200);
        assert_eq!(found["notes"][0]["id"], id, "{found}");

        let (status, refused) = api.post("/api/v1/notes", json!({"title": ""})).await;
        assert_eq!(status, 400);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("title"),
            "{refused}"
        );
        let (status, refused) = api
            .post("/api/v1/notes", json!({"title": "x", "colour": "red"}))
            .await;
        assert_eq!(status, 400, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("colour"),
            "{refused}"
        );

        let patch = |body: serde_json::Value| {
            api.client
                .patch(api.url(&format!("/api/v1/notes/{id}")))
                .json(&body)
                .send()
        };
        let edited = patch(json!({"body": "Steps, revised.", "base_version": 1}))
            .await
            .unwrap();
        assert_eq!(edited.status(), 200);
        let stale = patch(json!({"body": "lost?", "base_version": 1}))
            .await
            .unwrap();
        assert_eq!(stale.status(), 409);
        let (status, versions) = api.get(&format!("/api/v1/notes/{id}/versions")).await;
        assert_eq!(
            (status, versions["versions"].as_array().unwrap().len()),
            (200, 2),
            "{versions}"
        );
        let (status, restored) = api
            .post(
                &format!("/api/v1/notes/{id}/versions/1/restore"),
                json!(null),
            )
            .await;
        assert_eq!(
            (status, restored["version"].as_u64()),
            (200, Some(3)),
            "{restored}"
        );
        assert_eq!(api.get("/api/v1/notes/nope").await.0, 404);

        let deleted = api
            .client
            .delete(api.url(&format!("/api/v1/notes/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(deleted.status(), 204);
        assert_eq!(api.get(&format!("/api/v1/notes/{id}")).await.0, 404);

        let (_, audit) = api.get("/api/v1/audit").await;
        let actions: Vec<&str> = audit["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|entry| entry["action"].as_str())
            .collect();
        for action in ["note.create", "note.edit", "note.restore", "note.delete"] {
            assert!(
                actions.contains(&action),
                "{action} missing from {actions:?}"
            );
        }
        let text = audit.to_string();
        assert!(
            !text.contains("Steps"),
            "the audit keeps ids, never text: {text}"
        );
    }
}
