-- A materialised view over the streaming table: orders and amount per customer, recomputed
-- by each `spark-pipelines run`.
CREATE MATERIALIZED VIEW customer_totals AS
SELECT customer, count(*) AS orders, round(sum(amount), 2) AS amount
FROM orders
GROUP BY customer
