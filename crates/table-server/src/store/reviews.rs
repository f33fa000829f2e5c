//! The after-game reviews the server has made, kept in the database: one
//! document (JSON text) per finished game and seat, written once, so that
//! every instance sharing the database serves it and a restart keeps it.

use super::{Backend, Store, StoreError, now};
use rusqlite::{OptionalExtension, params};
use table_protocol::TableId;

impl Store {
    /// The stored review of `seat` at table `table`, if one was made.
    pub async fn review(&self, table: TableId, seat: usize) -> Result<Option<String>, StoreError> {
        let (table, seat) = (table as i64, seat as i64);
        match &*self.backend {
            Backend::Sqlite(b) => {
                b.call(move |t| {
                    Ok(t.prepare_cached(
                        "SELECT review FROM reviews WHERE table_id = ?1 AND seat = ?2",
                    )?
                    .query_row(params![table, seat], |r| r.get(0))
                    .optional()?)
                })
                .await
            }
            Backend::Postgres(b) => {
                let client = b.client().await?;
                Ok(client
                    .query_opt(
                        "SELECT review FROM reviews WHERE table_id = $1 AND seat = $2",
                        &[&table, &seat],
                    )
                    .await?
                    .map(|r| r.get(0)))
            }
        }
    }

    /// Keeps the review of `seat` at table `table`. A review already kept
    /// (another instance made it meanwhile) stays: both were made from the
    /// same record and budget.
    pub async fn put_review(
        &self,
        table: TableId,
        seat: usize,
        review: String,
    ) -> Result<(), StoreError> {
        let (table, seat, at) = (table as i64, seat as i64, now());
        match &*self.backend {
            Backend::Sqlite(b) => {
                b.call(move |t| {
                    t.prepare_cached(
                        "INSERT INTO reviews (table_id, seat, review, made_at) VALUES (?1, ?2, ?3, ?4) \
                         ON CONFLICT (table_id, seat) DO NOTHING",
                    )?
                    .execute(params![table, seat, review, at])?;
                    Ok(())
                })
                .await
            }
            Backend::Postgres(b) => {
                let client = b.client().await?;
                client
                    .execute(
                        "INSERT INTO reviews (table_id, seat, review, made_at) VALUES ($1, $2, $3, $4) \
                         ON CONFLICT (table_id, seat) DO NOTHING",
                        &[&table, &seat, &review, &at],
                    )
                    .await?;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{databases, instance};
    use crate::store::Store;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_review_is_kept_once_and_read_back_by_another_instance() {
        for db in databases().await {
            let lease = Duration::from_secs(30);
            let (a, _) = Store::open(&db.url, instance("a", lease))
                .await
                .expect("open");
            assert_eq!(a.review(4, 1).await.expect("read"), None, "{}", db.label);
            a.put_review(4, 1, r#"{"first":true}"#.into())
                .await
                .expect("put");
            // Made again meanwhile elsewhere: the first stays.
            a.put_review(4, 1, r#"{"first":false}"#.into())
                .await
                .expect("put again");
            assert_eq!(a.review(4, 0).await.expect("read"), None, "{}", db.label);
            let kept = Some(r#"{"first":true}"#.to_string());
            assert_eq!(a.review(4, 1).await.expect("read"), kept, "{}", db.label);
            if a.shared() {
                let (b, _) = Store::open(&db.url, instance("b", lease))
                    .await
                    .expect("open b");
                assert_eq!(b.review(4, 1).await.expect("read"), kept, "{}", db.label);
            }
        }
    }
}
